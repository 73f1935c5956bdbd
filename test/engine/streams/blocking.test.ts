/**
 * XREAD and XREADGROUP with BLOCK on the engine: waits that a write wakes, timeouts, and what
 * Redis 7.0 answers when the key or the group goes away meanwhile. Each behaviour here was
 * checked with two redis-cli clients against a 7.0.15 server.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../lib/engine/engine.ts';
import type { Reply } from '../../../lib/engine/reply.ts';
import { call, error, freshEngine, normalize, OK } from '../../support/command-script.ts';

/** Starts a blocking call; `settled()` tells whether it has answered yet. */
function start(engine: Engine, ...argv: string[]) {
  let reply: Reply | undefined;
  let done = false;
  const promise = engine.call(argv).then((value) => {
    reply = value;
    done = true;
    return normalize(value);
  });
  return {
    promise,
    settled: () => done,
    reply: () => (reply === undefined ? undefined : normalize(reply)),
  };
}

/** Lets pending promise callbacks run. */
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
const e = (id: string, value: string) => [id, ['f', value]];

describe('XREAD BLOCK', () => {
  it('waits for an entry after $ and answers with the key that got it', async () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 'a', '1-0', 'f', 'old');
    const read = start(engine, 'XREAD', 'BLOCK', '0', 'STREAMS', 'a', 'b', '$', '$');
    await flush();
    expect(read.settled()).toBe(false);
    call(engine, 'XADD', 'b', '5-0', 'f', 'new');
    expect(await read.promise).toEqual([['b', [e('5-0', 'new')]]]);
  });

  it('answers at once when there is data, and times out with nil', async () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 'a', '1-0', 'f', 'v');
    expect(await engine.call(['XREAD', 'BLOCK', '0', 'STREAMS', 'a', '0']).then(normalize)).toEqual([
      ['a', [e('1-0', 'v')]],
    ]);
    const started = Date.now();
    expect(await engine.call(['XREAD', 'BLOCK', '30', 'STREAMS', 'a', '$']).then(normalize)).toBe(null);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('gives a woken reader COUNT entries, or up to 1000 without COUNT', async () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 'a', '1-0', 'f', 'v');
    const counted = start(engine, 'XREAD', 'COUNT', '2', 'BLOCK', '0', 'STREAMS', 'a', '$');
    const uncounted = start(engine, 'XREAD', 'BLOCK', '0', 'STREAMS', 'a', '1-0');
    await flush();
    const adds = Array.from({ length: 1200 }, (_, i) => ['XADD', 'a', `${i + 2}-0`, 'f', 'v']);
    expect(engine.exec(adds)).toHaveLength(1200);
    expect(await counted.promise).toEqual([['a', [e('2-0', 'v'), e('3-0', 'v')]]]);
    const all = (await uncounted.promise) as [string, unknown[]][];
    expect(all[0]?.[1]).toHaveLength(1000);
  });

  it('keeps waiting when the key is deleted, and is served by entries after its id', async () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 'a', '5-0', 'f', 'v');
    const read = start(engine, 'XREAD', 'BLOCK', '0', 'STREAMS', 'a', '$');
    await flush();
    engine.db.delete('a');
    call(engine, 'XADD', 'a', '3-0', 'f', 'low');
    await flush();
    expect(read.settled()).toBe(false);
    call(engine, 'XADD', 'a', '6-0', 'f', 'high');
    expect(await read.promise).toEqual([['a', [e('6-0', 'high')]]]);
  });

  it('compares with the last id ever added, so an entry added and deleted at once wakes it empty', async () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 'a', '1-0', 'f', 'v');
    const read = start(engine, 'XREAD', 'BLOCK', '0', 'STREAMS', 'a', '$');
    await flush();
    engine.exec([
      ['XADD', 'a', '2-0', 'f', 'v'],
      ['XDEL', 'a', '2-0'],
    ]);
    expect(await read.promise).toEqual([['a', []]]);
  });

  it('answers nil at once inside MULTI and refuses BLOCK inside a script', async () => {
    const { engine } = freshEngine();
    expect(normalize(engine.exec([['XREAD', 'BLOCK', '0', 'STREAMS', 'a', '$']]))).toEqual([null]);
    expect(call(engine, 'XREAD', 'BLOCK', '0', 'STREAMS', 'a', '$')).toBe(null);
    const script = "return redis.pcall('XREAD','BLOCK','0','STREAMS','a','$')";
    expect(normalize(await engine.call(['EVAL', script, '0']))).toEqual(
      error('ERR XREAD command is not allowed with BLOCK option from scripts'),
    );
    const lower = "return redis.pcall('xreadgroup','BLOCK','10','GROUP','g','c','STREAMS','a','>')";
    expect(normalize(await engine.call(['EVAL', lower, '0']))).toEqual(
      error('ERR xreadgroup command is not allowed with BLOCK option from scripts'),
    );
    expect(normalize(await engine.call(['EVAL', "return redis.pcall('XREAD','STREAMS','a','$')", '0']))).toBe(
      null,
    );
  });

  it('caps a BLOCK longer than a timer can wait instead of firing at once', async () => {
    const { engine } = freshEngine();
    const read = start(engine, 'XREAD', 'BLOCK', '3000000000', 'STREAMS', 'a', '$');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(read.settled()).toBe(false);
    call(engine, 'XADD', 'a', '1-0', 'f', 'v');
    expect(await read.promise).toEqual([['a', [e('1-0', 'v')]]]);
  });
});

describe('XREADGROUP BLOCK', () => {
  it('delivers to waiting consumers in the order they blocked, one entry each', async () => {
    const { engine, clock } = freshEngine();
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    const first = start(engine, 'XREADGROUP', 'GROUP', 'g', 'alice', 'BLOCK', '0', 'STREAMS', 's', '>');
    const second = start(
      engine,
      'XREADGROUP',
      'GROUP',
      'g',
      'bob',
      'COUNT',
      '1',
      'BLOCK',
      '0',
      'STREAMS',
      's',
      '>',
    );
    await flush();
    clock.advance(10);
    call(engine, 'XADD', 's', '1-0', 'f', 'one');
    expect(await first.promise).toEqual([['s', [e('1-0', 'one')]]]);
    await flush();
    expect(second.settled()).toBe(false);
    call(engine, 'XADD', 's', '2-0', 'f', 'two');
    expect(await second.promise).toEqual([['s', [e('2-0', 'two')]]]);
    expect(call(engine, 'XPENDING', 's', 'g', '-', '+', '10')).toEqual([
      ['1-0', 'alice', 0, 1],
      ['2-0', 'bob', 0, 1],
    ]);
    expect(call(engine, 'XINFO', 'GROUPS', 's')).toEqual([
      ['name', 'g', 'consumers', 2, 'pending', 2, 'last-delivered-id', '2-0', 'entries-read', 2, 'lag', 0],
    ]);
  });

  it('creates no consumer while waiting, and none on timeout', async () => {
    const { engine } = freshEngine();
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    expect(
      normalize(await engine.call(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '20', 'STREAMS', 's', '>'])),
    ).toBe(null);
    expect(call(engine, 'XINFO', 'CONSUMERS', 's', 'g')).toEqual([]);
  });

  it('does not fill the PEL with NOACK', async () => {
    const { engine } = freshEngine();
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    const read = start(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'BLOCK', '0', 'STREAMS', 's', '>');
    await flush();
    call(engine, 'XADD', 's', '1-0', 'f', 'v');
    expect(await read.promise).toEqual([['s', [e('1-0', 'v')]]]);
    expect(call(engine, 'XPENDING', 's', 'g')).toEqual([0, null, null, null]);
  });

  it('answers UNBLOCKED when the key is deleted or replaced, and NOGROUP when the group is destroyed', async () => {
    const { engine } = freshEngine();
    for (const key of ['a', 'b', 'c']) call(engine, 'XGROUP', 'CREATE', key, 'g', '$', 'MKSTREAM');
    const deleted = start(engine, 'XREADGROUP', 'GROUP', 'g', 'x', 'BLOCK', '0', 'STREAMS', 'a', '>');
    const replaced = start(engine, 'XREADGROUP', 'GROUP', 'g', 'x', 'BLOCK', '0', 'STREAMS', 'b', '>');
    const destroyed = start(engine, 'XREADGROUP', 'GROUP', 'g', 'x', 'BLOCK', '0', 'STREAMS', 'c', '>');
    await flush();
    engine.db.delete('a');
    engine.db.set('b', 'string', 'x');
    expect(call(engine, 'XGROUP', 'DESTROY', 'c', 'g')).toBe(1);
    expect(await deleted.promise).toEqual(error('UNBLOCKED the stream key no longer exists'));
    expect(await replaced.promise).toEqual(error('UNBLOCKED the stream key no longer exists'));
    expect(await destroyed.promise).toEqual(
      error('NOGROUP the consumer group this client was blocked on no longer exists'),
    );
  });

  it('is not woken by XGROUP SETID, and the next XADD delivers from the new position', async () => {
    const { engine } = freshEngine();
    call(engine, 'XADD', 's', '1-0', 'f', 'v1');
    call(engine, 'XADD', 's', '2-0', 'f', 'v2');
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$');
    const read = start(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>');
    await flush();
    expect(call(engine, 'XGROUP', 'SETID', 's', 'g', '0')).toEqual(OK);
    await flush();
    expect(read.settled()).toBe(false);
    call(engine, 'XADD', 's', '3-0', 'f', 'v3');
    expect(await read.promise).toEqual([['s', [e('1-0', 'v1'), e('2-0', 'v2'), e('3-0', 'v3')]]]);
  });

  it('answers with the key only, empty, when the new entry was deleted in the same step', async () => {
    const { engine } = freshEngine();
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    const read = start(engine, 'XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>');
    await flush();
    engine.exec([
      ['XADD', 's', '1-0', 'f', 'v'],
      ['XDEL', 's', '1-0'],
    ]);
    expect(await read.promise).toEqual([['s', []]]);
    expect(call(engine, 'XINFO', 'GROUPS', 's')).toEqual([
      ['name', 'g', 'consumers', 1, 'pending', 0, 'last-delivered-id', '0-0', 'entries-read', null, 'lag', 0],
    ]);
  });

  it('serves history reads at once even with BLOCK', async () => {
    const { engine } = freshEngine();
    call(engine, 'XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM');
    expect(
      normalize(await engine.call(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '0'])),
    ).toEqual([['s', []]]);
  });
});

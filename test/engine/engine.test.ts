import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../lib/clock.ts';
import { createEngine, type WriteRecord } from '../../lib/engine/engine.ts';
import { RedisError, StatusReply } from '../../lib/engine/reply.ts';

describe('engine dispatch', () => {
  it('answers PING with a PONG status and echoes an argument', async () => {
    const engine = createEngine();
    expect(await engine.call(['PING'])).toEqual(new StatusReply('PONG'));
    expect(await engine.call(['ping', 'hello'])).toBe('hello');
  });

  it('reports unknown commands with the args Redis quotes', async () => {
    const engine = createEngine();
    const reply = await engine.call(['foo', 'a', 'b']);
    expect(reply).toBeInstanceOf(RedisError);
    expect((reply as RedisError).message).toBe(
      "ERR unknown command 'foo', with args beginning with: 'a' 'b' ",
    );
  });

  it('checks arity before running a command', () => {
    const engine = createEngine();
    expect((engine.callSync(['ping', 'a', 'b']) as RedisError).message).toBe(
      "ERR wrong number of arguments for 'ping' command",
    );
  });

  it('aborts a transaction with an unknown command before running any of it', () => {
    const engine = createEngine();
    const reply = engine.exec([['PING'], ['NOPE']]);
    expect((reply as RedisError).message).toBe('EXECABORT Transaction discarded because of previous errors.');
  });

  it('answers TIME from the injected clock', () => {
    const clock = createManualClock(1_700_000_000_123);
    const engine = createEngine({ clock });
    expect(engine.callSync(['TIME'])).toEqual(['1700000000', '123000']);
  });
});

describe('blocked calls', () => {
  it('withdraws a blocked read when its signal aborts, so a later XADD delivers nothing to it', async () => {
    const engine = createEngine();
    engine.callSync(['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']);
    const controller = new AbortController();
    const blocked = engine.call(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>'], {
      signal: controller.signal,
    });
    controller.abort();
    expect(await blocked).toBeNull();
    engine.callSync(['XADD', 's', '1-1', 'f', 'v']);
    expect(engine.callSync(['XPENDING', 's', 'g'])).toEqual([0, null, null, null]);
    expect(engine.callSync(['XREADGROUP', 'GROUP', 'g', 'c2', 'STREAMS', 's', '>'])).toEqual([
      ['s', [['1-1', ['f', 'v']]]],
    ]);
  });
});

describe('write records', () => {
  it('records a delivery made when a blocked XREADGROUP wakes, so a replay reaches the same PEL', async () => {
    const clock = createManualClock();
    const records: WriteRecord[] = [];
    const engine = createEngine({ clock, onWrite: (record) => records.push(record) });
    engine.callSync(['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']);
    const blocked = engine.call(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 's', '>']);
    engine.callSync(['XADD', 's', '5-1', 'f', 'v']);
    expect(await blocked).toEqual([['s', [['5-1', ['f', 'v']]]]]);
    expect(records.map((r) => r.argv)).toEqual([
      ['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'],
      ['XADD', 's', '5-1', 'f', 'v'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1000', 'STREAMS', 's', '>'],
    ]);

    const copy = createEngine({ clock });
    for (const record of records) copy.replay(record);
    expect(copy.callSync(['XPENDING', 's', 'g'])).toEqual([1, '5-1', '5-1', [['c', '1']]]);
  });
});

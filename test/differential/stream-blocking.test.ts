/**
 * Blocking reads compared with the real server: a client blocked in XREAD/XREADGROUP is released
 * by commands from a second connection (on the engine: `engine.call` released by `callSync`), and
 * both the wakers' replies and the released reply must match. Long timeouts are never waited for:
 * a scenario either ends with a write that releases the reader (BLOCK_MS only bounds a failing run)
 * or uses BLOCK 1 to see what a timeout leaves behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareScenario, connectServer, type Scenario } from '../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import type { RespClient } from '../support/resp-client.ts';

/** Long enough never to expire in a passing run; short enough that a reader never released fails its own test. */
const BLOCK_MS = '5000';

describe.skipIf(!redisAvailable)('blocked readers are released exactly like Redis 7.0', () => {
  let server: RespClient;
  let second: RespClient;
  beforeAll(async () => {
    server = await connectServer(REDIS_URL);
    second = await connectServer(REDIS_URL);
  });
  afterAll(async () => {
    await server.close();
    await second.close();
  });

  const same = async (scenario: Scenario) => {
    expect(await compareScenario(server, scenario, { second })).toEqual([]);
  };

  it('releases XREADGROUP > with the entry an XADD brings', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [['XADD', k('s'), '1-0', 'f', 'v']],
      },
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XINFO', 'GROUPS', k('s')],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
    ]));

  it('returns only the stream that became ready, with up to 1000 entries when COUNT is absent', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('a'), 'g', '$', 'MKSTREAM'],
      ['XGROUP', 'CREATE', k('b'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('a'), k('b'), '>', '>'],
        wake: [['XADD', k('b'), '1-0', 'f', 'v']],
      },
      {
        block: [
          'XREADGROUP',
          'GROUP',
          'g',
          'c',
          'COUNT',
          '1',
          'BLOCK',
          '0',
          'STREAMS',
          k('a'),
          k('b'),
          '>',
          '>',
        ],
        wake: [['XADD', k('a'), '5-0', 'f', 'v']],
      },
      ['XPENDING', k('a'), 'g'],
      ['XPENDING', k('b'), 'g'],
    ]));

  it('releases XREAD on $ with the new entry, whichever key it lands on', () =>
    same((k) => [
      ['XADD', k('a'), '1-0', 'f', 'old'],
      {
        block: ['XREAD', 'BLOCK', BLOCK_MS, 'STREAMS', k('a'), k('b'), '$', '$'],
        wake: [['XADD', k('b'), '2-0', 'f', 'new']],
      },
      {
        block: ['XREAD', 'COUNT', '5', 'BLOCK', BLOCK_MS, 'STREAMS', k('a'), '$'],
        wake: [['XADD', k('a'), '3-0', 'f', 'new']],
      },
    ]));

  it('tells a reader whose stream was deleted that it no longer exists', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [['DEL', k('s')]],
      },
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [['SET', k('s'), 'now a string']],
      },
    ]));

  it('tells a reader whose group was destroyed that the group is gone', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [['XGROUP', 'DESTROY', k('s'), 'g']],
      },
    ]));

  it('does not wake on SETID or on an entry trimmed away at once, then serves from the new position', () =>
    same((k) => [
      ['XADD', k('s'), '1-0', 'f', 'a'],
      ['XADD', k('s'), '2-0', 'f', 'b'],
      ['XGROUP', 'CREATE', k('s'), 'g', '$'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [
          ['XGROUP', 'SETID', k('s'), 'g', '0'],
          ['XADD', k('s'), 'MAXLEN', '0', '3-0', 'f', 'c'],
          ['XADD', k('s'), '4-0', 'f', 'd'],
        ],
      },
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('keeps an XREAD blocked across a deletion until a new entry arrives', () =>
    same((k) => [
      ['XADD', k('s'), '1-0', 'f', 'a'],
      {
        block: ['XREAD', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '$'],
        wake: [
          ['DEL', k('s')],
          ['XADD', k('s'), '1-0', 'f', 'not after the $ the reader saw'],
          ['XADD', k('s'), '2-0', 'f', 'after it'],
        ],
      },
    ]));

  it('delivers with NOACK on wake without filling the PEL', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [['XADD', k('s'), '7-0', 'f', 'v']],
      },
      ['XPENDING', k('s'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('times out with nil and creates no consumer when nothing arrives', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      { block: ['XREADGROUP', 'GROUP', 'g', 'late', 'BLOCK', '1', 'STREAMS', k('s'), '>'], wake: [] },
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      { block: ['XREAD', 'BLOCK', '1', 'STREAMS', k('s'), '$'], wake: [] },
      { block: ['XREADGROUP', 'GROUP', 'g', 'late', 'BLOCK', '1', 'STREAMS', k('s'), '0'], wake: [] },
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
    ]));

  it('serves everything a transaction added when released, up to COUNT', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [{ multi: [1, 2, 3].map((i) => ['XADD', k('s'), `${i}-0`, 'f', `v${i}`]) }],
      },
      {
        block: ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '2', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '>'],
        wake: [{ multi: [4, 5, 6].map((i) => ['XADD', k('s'), `${i}-0`, 'f', `v${i}`]) }],
      },
      {
        block: ['XREAD', 'BLOCK', BLOCK_MS, 'STREAMS', k('s'), '$'],
        wake: [
          {
            multi: [
              ['XADD', k('s'), '7-0', 'f', 'v'],
              ['XDEL', k('s'), '7-0'],
              ['XADD', k('s'), '8-0', 'f', 'v'],
            ],
          },
        ],
      },
      ['XPENDING', k('s'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
    ]));
});

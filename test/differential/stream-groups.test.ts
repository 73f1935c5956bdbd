/**
 * Consumer-group scenarios re-expressed from Redis' own stream tests, run step by step on the
 * engine and on the real server; every reply must match exactly (wall-clock values within a
 * tolerance). A failure lists each step where the engine answered differently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareScenario, connectServer, type Scenario } from '../support/differential.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
import type { RespClient } from '../support/resp-client.ts';

/** An hour in ms: idle thresholds far beyond anything a test run lasts, so results never race the clock. */
const HOUR = '3600000';

/** Five entries 1-0 … 5-0 with one field each. */
function fill(s: string, count = 5): string[][] {
  return Array.from({ length: count }, (_, i) => ['XADD', s, `${i + 1}-0`, 'f', `v${i + 1}`]);
}

describe.skipIf(!redisAvailable)('consumer groups answer exactly like Redis 7.0', () => {
  let server: RespClient;
  beforeAll(async () => {
    server = await connectServer(REDIS_URL);
  });
  afterAll(async () => {
    await server.close();
  });

  const same = async (scenario: Scenario) => {
    expect(await compareScenario(server, scenario)).toEqual([]);
  };

  it('refuses to create a group twice with BUSYGROUP', () =>
    same((k) => [
      ['XADD', k('s'), '1-0', 'a', '1'],
      ['XGROUP', 'CREATE', k('s'), 'g', '$'],
      ['XGROUP', 'CREATE', k('s'), 'g', '$'],
      ['XGROUP', 'CREATE', k('s'), 'g', '0', 'MKSTREAM'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('creates a group on a missing key only with MKSTREAM', () =>
    same((k) => [
      ['XGROUP', 'CREATE', k('s'), 'g', '$'],
      ['EXISTS', k('s')],
      ['XGROUP', 'CREATE', k('s'), 'g', '$', 'MKSTREAM'],
      ['TYPE', k('s')],
      ['XLEN', k('s')],
      ['XINFO', 'STREAM', k('s')],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'CREATE', k('s'), 'g2', '0', 'ENTRIESREAD', '-2'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '0', 'FOO'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '0', 'ENTRIESREAD', 'x'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '-'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '18446744073709551615-18446744073709551615'],
      ['XGROUP', 'CREATE', k('s'), 'g3', '0', 'ENTRIESREAD', '3'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('lets a group created at $ see only entries added later', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '$'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XADD', k('s'), '4-0', 'f', 'v4'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('shows each consumer only its own history and lists the PEL with owners', () =>
    same((k) => [
      ...fill(k('s'), 4),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', k('s'), '0'],
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'STREAMS', k('s'), '0-0'],
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '1', 'STREAMS', k('s'), '3'],
      ['XREADGROUP', 'GROUP', 'g', 'carol', 'STREAMS', k('s'), '0'],
      ['XPENDING', k('s'), 'g'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XPENDING', k('s'), 'g', '-', '+', '10', 'alice'],
      ['XPENDING', k('s'), 'g', '-', '+', '10', 'nobody'],
      ['XPENDING', k('s'), 'g', '(1-0', '+', '10'],
      ['XPENDING', k('s'), 'g', '-', '(4-0', '2'],
      ['XPENDING', k('s'), 'g', '-', '+', '-1'],
      ['XPENDING', k('s'), 'g', '-', '+', '0'],
      ['XPENDING', k('s'), 'g', '-', '+'],
      ['XPENDING', k('s'), 'g', '-', '+', 'x'],
      ['XPENDING', k('s'), 'g', 'IDLE', '0', '-', '+', '10', 'bob', 'ignored', 'too'],
      ['XPENDING', k('s'), 'nogroup'],
      ['XPENDING', k('s'), 'g', '(18446744073709551615-18446744073709551615', '+', '10'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('filters XPENDING by IDLE using delivery times set in the past', () =>
    same((k) => [
      ...fill(k('s'), 4),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', k('s'), '>'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '2-0', '3-0', 'IDLE', '7200000'],
      ['XPENDING', k('s'), 'g', 'IDLE', HOUR, '-', '+', '10'],
      ['XPENDING', k('s'), 'g', 'IDLE', HOUR, '-', '+', '10', 'c1'],
      ['XPENDING', k('s'), 'g', 'IDLE', HOUR, '-', '+', '10', 'c2'],
      ['XPENDING', k('s'), 'g', 'IDLE', '0', '-', '+', '10'],
      ['XPENDING', k('s'), 'g', 'IDLE', '-5', '-', '+', '10'],
      ['XPENDING', k('s'), 'g', 'IDLE', 'x', '-', '+', '10'],
      ['XPENDING', k('s'), 'g', 'IDLE', HOUR, '-', '+'],
      ['XPENDING', k('s'), 'g', 'IDLE', HOUR, '(2-0', '+', '10'],
    ]));

  it('acks once (1, then 0) and refuses a batch with one invalid id', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XACK', k('s'), 'g', '1-0'],
      ['XACK', k('s'), 'g', '1-0'],
      ['XACK', k('s'), 'g', '2-0', 'bad-id', '3-0'],
      ['XPENDING', k('s'), 'g'],
      ['XACK', k('s'), 'g', '2-0', '2-0', '3', '9-0'],
      ['XPENDING', k('s'), 'g'],
      ['XACK', k('s'), 'nogroup', 'bad-id'],
      ['XACK', k('missing'), 'g', 'bad-id'],
      ['XACK', k('s'), 'g', '-'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
    ]));

  it('hands PEL entries back to the next > reader with count 1 after SETID to the start', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', k('s'), '0'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XGROUP', 'SETID', k('s'), 'g', '-'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XPENDING', k('s'), 'g'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XGROUP', 'SETID', k('s'), 'g', '$'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'SETID', k('s'), 'g', '+'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'SETID', k('s'), 'g', '1-0', 'ENTRIESREAD', '1'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'SETID', k('s'), 'g', '1-0', 'MKSTREAM'],
      ['XGROUP', 'SETID', k('s'), 'nogroup', '0'],
      ['XGROUP', 'SETID', k('missing'), 'g', '0'],
    ]));

  it('returns deleted entries of a history read as [id, nil] after XADD MAXLEN', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XADD', k('s'), 'MAXLEN', '1', '4-0', 'f', 'v4'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '0'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XDEL', k('s'), '4-0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'STREAM', k('s')],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('moves ownership with XCLAIM and silently drops ids deleted from the stream', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', k('s'), '>'],
      ['XDEL', k('s'), '2-0'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '1-0', '2-0', '3-0'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XPENDING', k('s'), 'g'],
      ['XCLAIM', k('s'), 'g', 'c3', HOUR, '1-0'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XCLAIM', k('s'), 'g', 'c3', '0', '1-0', '9-0'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
    ]));

  it('raises the delivery count with XCLAIM but not with JUSTID, and honours every option', () =>
    same((k) => [
      ...fill(k('s'), 5),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '3', 'STREAMS', k('s'), '>'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '1-0'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '2-0', 'JUSTID'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XCLAIM', k('s'), 'g', 'c2', '0', '3-0', 'RETRYCOUNT', '7', 'IDLE', '5000000'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XCLAIM', k('s'), 'g', 'c3', HOUR, '1-0', '2-0', '3-0'],
      ['XCLAIM', k('s'), 'g', 'c3', '0', '4-0'],
      ['XCLAIM', k('s'), 'g', 'c3', '0', '4-0', 'FORCE'],
      ['XCLAIM', k('s'), 'g', 'c3', '0', '5-0', 'FORCE', 'JUSTID'],
      ['XCLAIM', k('s'), 'g', 'c3', '0', '9-0', 'FORCE'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'TIME', '1000'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '2-0', 'TIME', '99999999999999'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '3-0', 'IDLE', '-5'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', '1-0', 'JUSTID'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'LASTID', '10-0', 'JUSTID'],
      ['XINFO', 'GROUPS', k('s')],
      ['XCLAIM', k('s'), 'g', 'c1', HOUR, '1-0', 'LASTID', '20-0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'LASTID', '-'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'IDLE', 'x'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'TIME', 'x'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'RETRYCOUNT', '-1'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'BOGUS'],
      ['XCLAIM', k('s'), 'g', 'c1', '0', '1-0', 'IDLE'],
      ['XCLAIM', k('s'), 'g', 'c1', 'x', '1-0'],
      ['XCLAIM', k('s'), 'g', 'c1', '-1', '1-0'],
      ['XCLAIM', k('s'), 'nogroup', 'c1', 'x', '1-0'],
      ['XCLAIM', k('missing'), 'g', 'c1', '0', '1-0'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
    ]));

  it('iterates XAUTOCLAIM with a cursor over live and deleted entries', () =>
    same((k) => [
      ...fill(k('s'), 7),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', k('s'), '>'],
      ['XDEL', k('s'), '2-0', '5-0', '6-0'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '0-0', 'COUNT', '1'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '2-0', 'COUNT', '1'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '3-0', 'COUNT', '2'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '5-0', 'COUNT', '3'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '0-0', 'COUNT', '3', 'JUSTID'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', HOUR, '-'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '(1-0', 'COUNT', '2'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'JUSTID'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'COUNT', '0'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'COUNT', 'x'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'COUNT', '576460752303423488'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'COUNT', '576460752303423487'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', 'x', '-'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '-1', '-'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', 'bad'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '(18446744073709551615-18446744073709551615'],
      ['XAUTOCLAIM', k('s'), 'g', 'c3', '0', '-', 'BOGUS'],
      ['XAUTOCLAIM', k('s'), 'nogroup', 'c3', '0', '-'],
      ['XAUTOCLAIM', k('missing'), 'g', 'c3', '0', '-'],
      ['XAUTOCLAIM', k('missing'), 'g', 'c3', '0', '-', 'COUNT', '0'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('claims every entry of a long PEL within XAUTOCLAIM attempts and counts', () =>
    same((k) => [
      ...fill(k('s'), 30),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', k('s'), '>'],
      ['XDEL', k('s'), ...Array.from({ length: 12 }, (_, i) => `${i + 3}-0`)],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '-', 'COUNT', '1'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', HOUR, '-', 'COUNT', '1'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '-', 'COUNT', '4'],
      ['XAUTOCLAIM', k('s'), 'g', 'c2', '0', '-', 'COUNT', '100'],
      ['XPENDING', k('s'), 'g'],
    ]));

  it('shows groups, PELs and consumers in XINFO STREAM FULL after deletions', () =>
    same((k) => [
      ...fill(k('s'), 6),
      ['XGROUP', 'CREATE', k('s'), 'g2', '0'],
      ['XGROUP', 'CREATE', k('s'), 'g10', '$'],
      ['XGROUP', 'CREATE', k('s'), 'g1', '0'],
      ['XREADGROUP', 'GROUP', 'g2', 'zed', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XREADGROUP', 'GROUP', 'g2', 'amy', 'STREAMS', k('s'), '>'],
      ['XDEL', k('s'), '3-0', '1-0'],
      ['XINFO', 'STREAM', k('s'), 'FULL'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', '2'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', 'x'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'BOGUS'],
      ['XINFO', 'STREAM', k('s'), 'BOGUS'],
      ['XINFO', 'STREAM', k('s')],
      ['XINFO', 'GROUPS', k('s')],
      ['XINFO', 'CONSUMERS', k('s'), 'g2'],
      ['XINFO', 'CONSUMERS', k('s'), 'nogroup'],
      ['XINFO', 'STREAM', k('missing')],
      ['XINFO', 'GROUPS', k('missing')],
      ['XINFO', 'CONSUMERS', k('missing'), 'g'],
      ['XINFO', 'BOGUS', k('s')],
      ['XINFO', 'GROUPS'],
      ['XINFO', 'CONSUMERS', k('s')],
    ]));

  it('creates and deletes consumers explicitly', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XGROUP', 'CREATECONSUMER', k('s'), 'g', 'bob'],
      ['XGROUP', 'CREATECONSUMER', k('s'), 'g', 'bob'],
      ['XGROUP', 'CREATECONSUMER', k('s'), 'g', 'alice'],
      ['XINFO', 'GROUPS', k('s')],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XREADGROUP', 'GROUP', 'g', 'bob', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XGROUP', 'DELCONSUMER', k('s'), 'g', 'bob'],
      ['XGROUP', 'DELCONSUMER', k('s'), 'g', 'bob'],
      ['XPENDING', k('s'), 'g'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      ['XGROUP', 'CREATECONSUMER', k('s'), 'nogroup', 'x'],
      ['XGROUP', 'DELCONSUMER', k('s'), 'nogroup', 'x'],
      ['XGROUP', 'CREATECONSUMER', k('missing'), 'g', 'x'],
      ['XGROUP', 'DESTROY', k('s'), 'g'],
      ['XGROUP', 'DESTROY', k('s'), 'g'],
      ['XGROUP', 'DESTROY', k('missing'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'CREATECONSUMER', k('s'), 'g'],
      ['XGROUP', 'DESTROY', k('s')],
      ['XGROUP', 'BOGUS', k('s')],
      ['XGROUP', 'create', k('s')],
      ['XGROUP'],
    ]));

  it('tracks entries-read and lag through reads, SETID and deletions', () =>
    same((k) => [
      ...fill(k('s'), 5),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'SETID', k('s'), 'g', '3-0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XDEL', k('s'), '5-0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XADD', k('s'), '6-0', 'f', 'v6'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'SETID', k('s'), 'g', '$'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'SETID', k('s'), 'g', '0', 'ENTRIESREAD', '0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XDEL', k('s'), '1-0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XTRIM', k('s'), 'MAXLEN', '1'],
      ['XINFO', 'GROUPS', k('s')],
      ['XINFO', 'STREAM', k('s')],
      ['XGROUP', 'CREATE', k('s'), 'late', '0'],
      ['XGROUP', 'CREATE', k('s'), 'top', '$'],
      ['XGROUP', 'CREATE', k('s'), 'mid', '2-0', 'ENTRIESREAD', '2'],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('advances entries-read with NOACK without filling the PEL', () =>
    same((k) => [
      ...fill(k('s'), 3),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'NOACK', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XPENDING', k('s'), 'g'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '-3', 'STREAMS', k('s'), '>'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
    ]));

  it('reads several streams at once with XREAD and XREADGROUP', () =>
    same((k) => [
      ...fill(k('a'), 3),
      ...fill(k('b'), 2),
      ['XGROUP', 'CREATE', k('a'), 'g', '0'],
      ['XGROUP', 'CREATE', k('b'), 'g', '$'],
      ['XREAD', 'STREAMS', k('a'), k('b'), '0', '1-0'],
      ['XREAD', 'COUNT', '1', 'STREAMS', k('a'), k('b'), '0', '0'],
      ['XREAD', 'STREAMS', k('a'), k('b'), '$', '$'],
      ['XREAD', 'STREAMS', k('a'), k('b'), k('missing'), '3-0', '2-0', '0'],
      ['XREAD', 'STREAMS', k('a'), k('missing'), '0', '0'],
      ['XREAD', 'BLOCK', '100', 'STREAMS', k('a'), '1-0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('a'), k('b'), '>', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('a'), k('b'), '0', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '100', 'STREAMS', k('a'), k('b'), '0', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('a'), k('missing'), '>', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('a'), k('b'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('a'), '$'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('a'), 'x'],
      ['XREADGROUP', 'GROUP', 'nogroup', 'c', 'STREAMS', k('a'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 'x', 'STREAMS', k('a'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '-1', 'STREAMS', k('a'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', 'x', 'STREAMS', k('a'), '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'BOGUS', 'STREAMS', k('a'), '>'],
      ['XREADGROUP', 'COUNT', '1', 'STREAMS', k('a'), '>', 'x'],
      ['XREADGROUP', 'GROUP', 'g', 'STREAMS', k('a'), '>'],
      ['XREAD', 'STREAMS', k('a'), '>'],
      ['XREAD', 'GROUP', 'g', 'c', 'STREAMS', k('a'), '0'],
      ['XREAD', 'NOACK', 'STREAMS', k('a'), '0'],
      ['XREAD', 'STREAMS', k('a'), k('b'), '0'],
      ['XREAD', 'STREAMS', k('a'), '-'],
      ['XREAD', 'STREAMS', k('a'), '+'],
      ['XREAD', 'COUNT', '0', 'STREAMS', k('a'), '0'],
      ['XREAD', 'COUNT', '-1', 'STREAMS', k('a'), '0'],
      ['XREAD', 'STREAMS'],
      ['XREAD', 'COUNT', '1', 'COUNT', '2', 'STREAMS', k('a'), '0'],
    ]));

  it('answers blocking reads at once inside MULTI, and runs transactions atomically', () =>
    same((k) => [
      ...fill(k('s'), 2),
      ['XGROUP', 'CREATE', k('s'), 'g', '$'],
      { multi: [['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '1000', 'STREAMS', k('s'), '>']] },
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
      { multi: [['XREAD', 'BLOCK', '0', 'STREAMS', k('s'), '$']] },
      { multi: [['XREAD', 'BLOCK', '0', 'STREAMS', k('s'), '0']] },
      {
        multi: [
          ['XADD', k('s'), '3-0', 'f', 'v3'],
          ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', k('s'), '>'],
          ['XACK', k('s'), 'g', '3-0'],
          ['XPENDING', k('s'), 'g'],
        ],
      },
      {
        multi: [
          ['XADD', k('s'), '4-0', 'f', 'v'],
          ['INCR', k('s')],
          ['XLEN', k('s')],
        ],
      },
      {
        multi: [
          ['XADD', k('s'), '5-0', 'f', 'v'],
          ['NOSUCH', k('s')],
        ],
      },
      { multi: [['XADD', k('s'), '5-0', 'f', 'v'], ['XLEN']] },
      ['XLEN', k('s')],
      ['XINFO', 'GROUPS', k('s')],
    ]));

  it('lists every PEL entry in XINFO STREAM FULL with COUNT 0', () =>
    same((k) => [
      ...fill(k('s'), 2),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'STREAM', k('s'), 'FULL', 'COUNT', '0'],
    ]));

  it('computes lag across XDELs and XTRIMs the way Redis estimates it', () =>
    same((k) => [
      ...fill(k('s'), 5),
      ['XDEL', k('s'), '3-0'],
      ['XGROUP', 'CREATE', k('s'), 'g1', '0'],
      ['XGROUP', 'CREATE', k('s'), 'g2', '0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g1', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g1', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g1', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g1', 'c', 'COUNT', '1', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XADD', k('s'), '6-0', 'f', 'v6'],
      ['XINFO', 'GROUPS', k('s')],
      ['XREADGROUP', 'GROUP', 'g2', 'c', 'STREAMS', k('s'), '>'],
      ['XINFO', 'GROUPS', k('s')],
      ['XTRIM', k('s'), 'MINID', '5-0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XGROUP', 'CREATE', k('s'), 'g3', '0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XTRIM', k('s'), 'MAXLEN', '0'],
      ['XINFO', 'GROUPS', k('s')],
      ['XADD', k('s'), '7-0', 'f', 'v7'],
      ['XINFO', 'GROUPS', k('s')],
      ['XINFO', 'STREAM', k('s'), 'FULL'],
    ]));

  it('reports an empty history once everything is acked, and drops trimmed entries on XCLAIM', () =>
    same((k) => [
      ...fill(k('s'), 4),
      ['XGROUP', 'CREATE', k('s'), 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '2', 'STREAMS', k('s'), '>'],
      ['XACK', k('s'), 'g', '1-0', '2-0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', k('s'), '>'],
      ['XTRIM', k('s'), 'MAXLEN', '1'],
      ['XCLAIM', k('s'), 'g', 'd', '0', '3-0', '4-0'],
      ['XPENDING', k('s'), 'g', '-', '+', '10'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '1', 'STREAMS', k('s'), '0'],
      ['XINFO', 'CONSUMERS', k('s'), 'g'],
    ]));
});

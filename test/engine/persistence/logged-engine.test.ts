import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../lib/clock.ts';
import { encodeRecord } from '../../../lib/engine/persistence/log-format.ts';
import { createMemoryStorage } from '../../../lib/engine/persistence/log-storage.ts';
import { openDurable } from '../../../lib/engine/persistence/logged-engine.ts';

describe('durable engine', () => {
  it('brings strings and hashes back after a restart', () => {
    const storage = createMemoryStorage();
    const clock = createManualClock();
    const first = openDurable({ storage, clock });
    first.engine.callSync(['SET', 'greeting', 'hello']);
    first.engine.callSync(['INCRBY', 'counter', '5']);
    first.engine.callSync(['HSET', 'user:1', 'name', 'Ada', 'lang', 'en']);
    first.engine.callSync(['HDEL', 'user:1', 'lang']);
    first.engine.callSync(['GET', 'greeting']);
    first.close();

    const second = openDurable({ storage, clock });
    expect(second.replayed).toBe(4);
    expect(second.engine.callSync(['GET', 'greeting'])).toBe('hello');
    expect(second.engine.callSync(['GET', 'counter'])).toBe('5');
    expect(second.engine.callSync(['HGETALL', 'user:1'])).toEqual(['name', 'Ada']);
  });

  it('replays the effects of a script, not the script, giving the same state', () => {
    const storage = createMemoryStorage();
    const clock = createManualClock(1_700_000_000_000);
    const first = openDurable({ storage, clock });
    const script =
      "local n = redis.call('incr', KEYS[1]) redis.call('hset', KEYS[2], 'at', redis.call('time')[1], 'n', n) return n";
    first.engine.callSync(['EVAL', script, '2', 'seq', 'meta']);
    clock.advance(5_000);
    first.engine.callSync(['EVAL', script, '2', 'seq', 'meta']);
    const before = first.engine.callSync(['HGETALL', 'meta']);
    first.close();

    // A different clock at restart: replay must use the recorded times, and must not run Lua.
    const second = openDurable({ storage, clock: createManualClock(0) });
    expect(second.replayed).toBe(4);
    expect(second.engine.callSync(['HGETALL', 'meta'])).toEqual(before);
    expect(before).toEqual(['at', '1700000005', 'n', '2']);
    expect(second.engine.callSync(['GET', 'seq'])).toBe('2');
  });

  it('drops a torn last record, keeps the earlier ones and appends cleanly after them', () => {
    const storage = createMemoryStorage();
    const first = openDurable({ storage });
    first.engine.callSync(['SET', 'a', '1']);
    first.engine.callSync(['SET', 'b', '2']);
    first.close();
    // Power lost half-way through writing a third record.
    const frame = encodeRecord({ argv: ['SET', 'c', '3'], now: 0 });
    storage.append(frame.subarray(0, frame.length - 3));

    const second = openDurable({ storage });
    expect(second.replayed).toBe(2);
    expect(second.droppedBytes).toBe(frame.length - 3);
    expect(second.engine.callSync(['MGET', 'a', 'b', 'c'])).toEqual(['1', '2', null]);
    second.engine.callSync(['SET', 'd', '4']);
    second.close();

    const third = openDurable({ storage });
    expect(third.droppedBytes).toBe(0);
    expect(third.engine.callSync(['MGET', 'a', 'b', 'c', 'd'])).toEqual(['1', '2', null, '4']);
  });

  it('compacts a log that grew large into a snapshot that restores the same data', () => {
    const storage = createMemoryStorage();
    const tasks: (() => void)[] = [];
    const errors: string[] = [];
    const first = openDurable({
      storage,
      compactAfterBytes: 4_000,
      schedule: (task) => tasks.push(task),
      onError: (error) => errors.push(error.message),
    });
    for (let i = 0; i < 300; i++) {
      first.engine.callSync(['SET', `key:${i % 10}`, `value-${i}`]);
      first.engine.callSync(['HSET', 'hash', `field:${i % 5}`, String(i)]);
      first.engine.callSync(['SADD', 'set', `member:${i % 7}`]);
      first.engine.callSync(['ZADD', 'zset', String(i / 3), `m${i % 4}`]);
    }
    expect(tasks.length).toBe(1);
    const grown = first.logBytes();
    for (const task of tasks.splice(0)) task();
    expect(errors).toEqual([]);
    expect(first.logBytes()).toBeLessThan(grown / 10);
    expect(storage.bytes().length).toBe(first.logBytes());
    first.engine.callSync(['SET', 'after', 'compaction']);
    first.close();

    const second = openDurable({ storage });
    const engine = second.engine;
    expect(engine.callSync(['GET', 'key:9'])).toBe('value-299');
    expect(engine.callSync(['GET', 'after'])).toBe('compaction');
    expect(engine.callSync(['HGETALL', 'hash'])).toEqual([
      'field:0',
      '295',
      'field:1',
      '296',
      'field:2',
      '297',
      'field:3',
      '298',
      'field:4',
      '299',
    ]);
    expect(engine.callSync(['SCARD', 'set'])).toBe(7);
    expect(engine.callSync(['ZSCORE', 'zset', 'm3'])).toBe('99.666666666666671');
    expect(engine.callSync(['ZSCORE', 'zset', 'm2'])).toBe('99.333333333333329');
  });
});

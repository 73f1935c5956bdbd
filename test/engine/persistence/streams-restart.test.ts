/**
 * Streams, consumer groups and their pending entries survive a restart: by replaying the log, and
 * after compacting it into a snapshot.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../../lib/clock.ts';
import type { Engine } from '../../../lib/engine/engine.ts';
import { createMemoryStorage, type MemoryStorage } from '../../../lib/engine/persistence/log-storage.ts';
import { openDurable } from '../../../lib/engine/persistence/logged-engine.ts';
import { RedisError } from '../../../lib/engine/reply.ts';

/** Builds a queue-like stream: two groups, deliveries to two consumers, an ack, a claim, a delete. */
function exercise(engine: Engine, clock: ManualClock): void {
  const run = (...argv: string[]) => {
    const reply = engine.callSync(argv);
    if (reply instanceof RedisError) throw new Error(`${argv.join(' ')}: ${reply.message}`);
  };
  run('XGROUP', 'CREATE', 'q', 'workers', '0', 'MKSTREAM');
  for (let i = 0; i < 8; i++) {
    run('XADD', 'q', '*', 'body', `message-${i}`);
    clock.advance(3);
  }
  run('XGROUP', 'CREATE', 'q', 'audit', '$');
  // The queue's consume path is a script: its XREADGROUP is logged with the time it saw.
  run(
    'EVAL',
    "return redis.call('XREADGROUP', 'GROUP', 'workers', ARGV[1], 'COUNT', 3, 'STREAMS', KEYS[1], '>')",
    '1',
    'q',
    'alice',
  );
  clock.advance(1_000);
  run('XREADGROUP', 'GROUP', 'workers', 'bob', 'COUNT', '2', 'STREAMS', 'q', '>');
  clock.advance(5_000);
  const pending = engine.callSync(['XPENDING', 'q', 'workers', '-', '+', '10']) as string[][];
  run('XACK', 'q', 'workers', pending[0]![0]!);
  run('XCLAIM', 'q', 'workers', 'bob', '1000', pending[1]![0]!);
  run('XDEL', 'q', pending[4]![0]!);
  run('XADD', 'q', '*', 'body', 'late');
  run('XGROUP', 'CREATECONSUMER', 'q', 'workers', 'carol');
  clock.advance(250);
}

function state(engine: Engine): unknown {
  return [
    engine.callSync(['XINFO', 'STREAM', 'q', 'FULL', 'COUNT', '0']),
    engine.callSync(['XPENDING', 'q', 'workers', '-', '+', '100']),
    engine.callSync(['XPENDING', 'q', 'workers']),
    engine.callSync(['XINFO', 'CONSUMERS', 'q', 'workers']),
    engine.callSync(['XINFO', 'GROUPS', 'q']),
  ];
}

function restart(storage: MemoryStorage, clock: ManualClock) {
  return openDurable({ storage, clock });
}

describe('streams across a restart', () => {
  it('keeps entries, groups, consumers and the PEL (owners, delivery times and counts) by replay', () => {
    const storage = createMemoryStorage();
    const clock = createManualClock(1_700_000_000_000);
    const first = openDurable({ storage, clock });
    exercise(first.engine, clock);
    const before = state(first.engine);
    first.close();

    const second = restart(storage, clock);
    expect(state(second.engine)).toEqual(before);
    // And the group carries on where it stopped.
    const next = second.engine.callSync([
      'XREADGROUP',
      'GROUP',
      'workers',
      'carol',
      'COUNT',
      '10',
      'STREAMS',
      'q',
      '>',
    ]);
    expect(next).toEqual([
      [
        'q',
        [
          [expect.any(String), ['body', 'message-5']],
          [expect.any(String), ['body', 'message-6']],
          [expect.any(String), ['body', 'message-7']],
          [expect.any(String), ['body', 'late']],
        ],
      ],
    ]);
  });

  it('keeps the same stream state after the log is compacted into a snapshot', () => {
    const storage = createMemoryStorage();
    const clock = createManualClock(1_700_000_000_000);
    const errors: string[] = [];
    const first = openDurable({ storage, clock, onError: (error) => errors.push(error.message) });
    exercise(first.engine, clock);
    const before = state(first.engine);
    const compacted = first.compact();
    expect(errors).toEqual([]);
    expect(compacted).toBe(true);
    first.close();

    const second = restart(storage, clock);
    const after = state(second.engine) as unknown[];
    // The snapshot re-adds entries without the deleted one's tombstone, so only the stream's
    // internal radix-tree figures may differ; everything a client reads is the same.
    const withoutRadix = (info: unknown) =>
      (info as unknown[]).filter((_, i, all) => !String(all[i - (i % 2)]).startsWith('radix-tree'));
    expect(withoutRadix(after[0])).toEqual(withoutRadix((before as unknown[])[0]));
    expect(after.slice(1)).toEqual((before as unknown[]).slice(1));
  });
});

/**
 * The watch registry (lib/queue/watch.ts) against a scripted blocking read: shared reads, when a
 * waiter's leaving ends the read, due times, and the fallbacks when a backend cannot block.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../lib/clock.ts';
import { createWatchRegistry, type WatchPoint, watchPointOf } from '../../lib/queue/watch.ts';
import type { CallOptions, RedisClient } from '../../lib/redis/client.ts';

interface Read {
  blockMs: number;
  signal: AbortSignal | undefined;
  answer(arrived: boolean): void;
}

/** A seam whose blocking reads stay open until the test answers them (or they are aborted). */
function scripted(behaviour: 'hold' | 'at-once' | 'fail' = 'hold') {
  const reads: Read[] = [];
  const redis: RedisClient = {
    evalsha: () => Promise.reject(new Error('not used')),
    eval: () => Promise.reject(new Error('not used')),
    blockingRead: (_keys, _ids, blockMs, options?: CallOptions) => {
      if (behaviour === 'at-once') return Promise.resolve(false);
      if (behaviour === 'fail') return Promise.reject(new Error('ERR unknown command'));
      return new Promise<boolean>((resolve, reject) => {
        const signal = options?.signal;
        reads.push({ blockMs, signal, answer: resolve });
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
  return { redis, reads };
}

const point = (dueAt: number | null = null): WatchPoint => ({
  scope: 'q\ng',
  keys: ['q:{q}:stream', 'q:{q}:wake'],
  ids: ['1-0', '0-0'],
  dueAt,
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the watch registry', () => {
  it('serves many waiters of one point with one read and wakes them all', async () => {
    const { redis, reads } = scripted();
    const watches = createWatchRegistry({ redis, clock: systemClock, lingerMs: 100 });
    const until = systemClock.now() + 5000;
    const waits = Array.from({ length: 5 }, () => watches.wait(point(), until));
    await pause(10);
    expect(reads).toHaveLength(1);
    expect(watches.reads).toBe(1);
    // Blocks until the latest deadline plus the linger.
    expect(reads[0]?.blockMs).toBeGreaterThan(4900);
    expect(reads[0]?.blockMs).toBeLessThanOrEqual(5100);
    reads[0]?.answer(true);
    expect(await Promise.all(waits)).toEqual(['woken', 'woken', 'woken', 'woken', 'woken']);
  });

  it('lets a consumer that consumed lately join a read in flight, and not one that never did', async () => {
    const { redis, reads } = scripted();
    const watches = createWatchRegistry({ redis, clock: systemClock, livenessMs: 60_000 });
    expect(watches.active('q\ng', 'c1')).toBeNull();
    const waiting = watches.wait(point(), systemClock.now() + 5000);
    await pause(10);
    expect(watches.active('q\ng', 'c1')).toBeNull();
    watches.consumed('q\ng', 'c1');
    expect(watches.active('q\ng', 'c1')).toEqual(point());
    reads[0]?.answer(true);
    expect(await waiting).toBe('woken');
    expect(watches.active('q\ng', 'c1')).toBeNull();
  });

  it('ends the read when the last waiter leaves by abort, not while another still waits', async () => {
    const { redis, reads } = scripted();
    const watches = createWatchRegistry({ redis, clock: systemClock });
    const first = new AbortController();
    const second = new AbortController();
    const until = systemClock.now() + 10_000;
    const waits = [watches.wait(point(), until, first.signal), watches.wait(point(), until, second.signal)];
    await pause(10);
    first.abort();
    expect(await waits[0]).toBe('timeout');
    expect(reads[0]?.signal?.aborted).toBe(false);
    second.abort();
    expect(await waits[1]).toBe('timeout');
    expect(reads[0]?.signal?.aborted).toBe(true);
  });

  it('answers due at the due time and timeout at the deadline, the read lingering for the next poll', async () => {
    const { redis, reads } = scripted();
    const watches = createWatchRegistry({ redis, clock: systemClock, lingerMs: 200 });
    const started = performance.now();
    expect(await watches.wait(point(systemClock.now() + 100), systemClock.now() + 5000)).toBe('due');
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(performance.now() - started).toBeLessThan(300);
    const again = performance.now();
    expect(await watches.wait(point(), systemClock.now() + 100)).toBe('timeout');
    expect(performance.now() - again).toBeLessThan(300);
    // The deadline's read was not aborted: it lingers (ending by itself 200 ms later).
    expect(reads.at(-1)?.signal?.aborted).toBe(false);
  });

  it('reports unsupported when there is no blocking read, when it fails, or when it answers at once', async () => {
    const until = systemClock.now() + 2000;
    const none: RedisClient = { evalsha: () => Promise.resolve(null), eval: () => Promise.resolve(null) };
    expect(await createWatchRegistry({ redis: none, clock: systemClock }).wait(point(), until)).toBe(
      'unsupported',
    );
    const failing = scripted('fail').redis;
    expect(await createWatchRegistry({ redis: failing, clock: systemClock }).wait(point(), until)).toBe(
      'unsupported',
    );
    const eager = scripted('at-once').redis;
    expect(await createWatchRegistry({ redis: eager, clock: systemClock }).wait(point(), until)).toBe(
      'unsupported',
    );
  });
});

describe('watchPointOf', () => {
  const part = (p: number, streamLast: string, dueAt = -1) => ({
    stream: `q:{q#${p}}:stream`,
    wake: `q:{q#${p}}:wake`,
    streamLast,
    wakeLast: `${p}-9`,
    dueAt,
  });

  it('waits at every partition tried, keys in one order, until the earliest due time', () => {
    expect(watchPointOf('q\ng', [part(2, '2-1', 500), part(1, '1-1', -1), part(3, '3-1', 300)])).toEqual({
      scope: 'q\ng',
      keys: [
        'q:{q#1}:stream',
        'q:{q#1}:wake',
        'q:{q#2}:stream',
        'q:{q#2}:wake',
        'q:{q#3}:stream',
        'q:{q#3}:wake',
      ],
      ids: ['1-1', '1-9', '2-1', '2-9', '3-1', '3-9'],
      dueAt: 300,
    });
    expect(watchPointOf('q\ng', [part(1, '1-1')])?.dueAt).toBeNull();
  });

  it('gives no point when a partition had the consumer at its cap, or none was tried', () => {
    expect(watchPointOf('q\ng', [part(1, '1-1'), part(2, '')])).toBeNull();
    expect(watchPointOf('q\ng', [])).toBeNull();
  });
});

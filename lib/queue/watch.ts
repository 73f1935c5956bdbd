/**
 * Waiting for work without polling (issue 18). A consume that delivers nothing also answers a
 * watch point: the last ids of each partition's stream and wake stream, and when something it
 * holds becomes due (a delayed message, a lease expiry, a nack delay). A long poll then waits with
 * one blocking read past those ids (`XREAD BLOCK`, RedisClient.blockingRead), bounded by its own
 * deadline and the due time, and consumes again when it wakes.
 *
 * Waiters of one group in one process share reads: the registry keeps one watch per (scope =
 * queue and group, ids) with the waiters on it, runs one read at a time for all of them (blocking
 * until the latest of their deadlines) and wakes them all when it returns an entry. While such a
 * watch is unfired, nothing was deliverable to the group when it was made and nothing arrived
 * since, so a new waiter may join it without consuming first (`active`); each consumer still
 * consumes for real at least every `livenessMs`, which keeps its last-seen time (the sweep's idle
 * consumer removal) fresh. A read lasts `lingerMs` past its latest waiter's deadline, so the next
 * poll of a consumer that just got an empty answer joins it instead of consuming and reading
 * anew: an idle consumer costs about one read per poll. Nothing outlives the waits by more than
 * that: a watch is dropped when its read ends with no waiter left (at once when a client leaves),
 * so handlers stay stateless between requests.
 */
import { type Clock, sleepFor } from '../clock.ts';
import type { RedisClient } from '../redis/client.ts';

export interface WatchPoint {
  /** Waiters with the same scope (queue and group) and ids share one blocking read. */
  readonly scope: string;
  /** The streams to read (each partition's stream and wake stream). */
  readonly keys: readonly string[];
  /** The id past which each key is read (its last id when the consume ran). */
  readonly ids: readonly string[];
  /** When something the consume saw becomes due (service clock, ms); null for never. */
  readonly dueAt: number | null;
}

/**
 * How a wait ended: an entry arrived (`woken`), the due time came (`due`), the deadline came or
 * the caller left (`timeout`), or no blocking read could be made (`unsupported`: the caller polls).
 */
export type WaitOutcome = 'woken' | 'due' | 'timeout' | 'unsupported';

/** Waits `ms`, resolving early when `signal` aborts (the API's `Sleep`; tests advance a clock). */
export type Pause = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface WatchRegistry {
  /**
   * Waits at `point` until `until` (service clock) at the latest. Never rejects. The deadline and
   * due time are timed with `pause` (real timers by default), so a manual clock can drive them.
   */
  wait(point: WatchPoint, until: number, signal?: AbortSignal, pause?: Pause): Promise<WaitOutcome>;
  /**
   * An unfired watch of `scope` that `consumer` may join without consuming first, or null (none,
   * due already, or the consumer has not consumed for real within `livenessMs`).
   */
  active(scope: string, consumer: string): WatchPoint | null;
  /** Records a real consume of `consumer` (its last-seen time was just written). */
  consumed(scope: string, consumer: string): void;
  /** Blocking reads in flight (for tests and metrics). */
  readonly reads: number;
}

export interface WatchOptions {
  redis: RedisClient;
  clock: Clock;
  /** How often a consumer consumes for real even while it could join a watch. Default 5 min. */
  livenessMs?: number;
  /** Longest single blocking read. Default 60 s. */
  maxBlockMs?: number;
  /** How long a read outlasts its latest waiter's deadline, for the next poll to join. Default 1.5 s. */
  lingerMs?: number;
}

interface Waiter {
  /** Local deadline (performance.now). */
  readonly end: number;
  readonly due: boolean;
  readonly settle: (outcome: WaitOutcome) => void;
}

interface Watch {
  readonly point: WatchPoint;
  readonly key: string;
  readonly waiters: Set<Waiter>;
  fired: boolean;
  /** Whether a loop of reads serves this watch. */
  running: boolean;
  /** The read in flight and where it ends (local time). */
  read: AbortController | undefined;
  readEnd: number;
}

/** A read that answers nothing this much earlier than asked means the backend does not block. */
const EARLY_MS = 50;

const localNow = (): number => performance.now();

const timerPause: Pause = sleepFor;

/** Where one partition's consume left off when it delivered nothing (its script's answer). */
export interface WatchedPartition {
  /** The partition's stream and wake stream (lib/queue/keys.ts). */
  stream: string;
  wake: string;
  /** Their last ids; streamLast '' when the consumer is at its in-flight cap. */
  streamLast: string;
  wakeLast: string;
  /** When something it holds becomes due (service clock, ms); -1 for never. */
  dueAt: number;
}

/**
 * The watch point of a consume that delivered nothing from the partitions it tried: each one's
 * stream and wake stream, past their last ids, in one order (so waiters of a group find the same
 * point), and the earliest due time. Null when there is nothing to wait at: no partition, or the
 * consumer at its in-flight cap (nothing at the stream can change that).
 */
export function watchPointOf(scope: string, parts: readonly WatchedPartition[]): WatchPoint | null {
  if (parts.length === 0 || parts.some((part) => part.streamLast === '')) return null;
  const streams = parts.flatMap((part) => [
    [part.stream, part.streamLast],
    [part.wake, part.wakeLast],
  ]);
  streams.sort(([a], [b]) => (a as string).localeCompare(b as string));
  const due = parts.map((part) => part.dueAt).filter((at) => at >= 0);
  return {
    scope,
    keys: streams.map(([key]) => key as string),
    ids: streams.map(([, id]) => id as string),
    dueAt: due.length === 0 ? null : Math.min(...due),
  };
}

/**
 * @example
 * const watches = createWatchRegistry({ redis, clock: systemClock });
 * if ((await watches.wait(point, clock.now() + 20_000, signal)) === 'woken') consumeAgain();
 */
export function createWatchRegistry(options: WatchOptions): WatchRegistry {
  const { redis, clock } = options;
  const livenessMs = options.livenessMs ?? 5 * 60_000;
  const maxBlockMs = options.maxBlockMs ?? 60_000;
  const lingerMs = options.lingerMs ?? 1500;
  const watches = new Map<string, Watch>();
  const latest = new Map<string, Watch>();
  const lastReal = new Map<string, number>();
  let reads = 0;

  function finish(watch: Watch, outcome: WaitOutcome): void {
    watch.fired = true;
    for (const waiter of watch.waiters) waiter.settle(outcome);
    watch.waiters.clear();
    drop(watch);
  }

  function drop(watch: Watch): void {
    if (watches.get(watch.key) === watch) watches.delete(watch.key);
    if (latest.get(watch.point.scope) === watch) latest.delete(watch.point.scope);
  }

  /**
   * The last waiter left: a client that went away ends the read at once (and the watch); a
   * deadline lets it linger for the next poll unless it would run much longer than that.
   */
  function leave(watch: Watch, waiter: Waiter, aborted: boolean): void {
    watch.waiters.delete(waiter);
    if (watch.waiters.size > 0) return;
    if (watch.read === undefined) {
      drop(watch);
      return;
    }
    if (aborted || watch.readEnd - localNow() > lingerMs + 500) {
      drop(watch);
      watch.read.abort(new DOMException('No waiter is left', 'AbortError'));
    }
  }

  async function run(watch: Watch, read: NonNullable<RedisClient['blockingRead']>): Promise<void> {
    watch.running = true;
    try {
      await reading(watch, read);
    } finally {
      watch.running = false;
      // Nobody joined while it lingered: the watch ends with its read.
      if (watch.waiters.size === 0) drop(watch);
    }
  }

  async function reading(watch: Watch, read: NonNullable<RedisClient['blockingRead']>): Promise<void> {
    while (watch.waiters.size > 0 && !watch.fired) {
      let end = 0;
      for (const waiter of watch.waiters) end = Math.max(end, waiter.end);
      const started = localNow();
      if (end - started <= 0) return;
      const blockMs = Math.min(Math.ceil(end - started) + lingerMs, maxBlockMs);
      const controller = new AbortController();
      watch.read = controller;
      watch.readEnd = started + blockMs;
      reads++;
      let arrived: boolean;
      try {
        arrived = await read(watch.point.keys, watch.point.ids, blockMs, { signal: controller.signal });
      } catch {
        // Aborted (no waiter left) or the read failed: waiters still here poll instead.
        if (!controller.signal.aborted) finish(watch, 'unsupported');
        return;
      } finally {
        reads--;
        watch.read = undefined;
      }
      if (arrived) {
        finish(watch, 'woken');
        return;
      }
      // A backend that answers a blocking read at once (nothing to wait with) would spin here.
      if (localNow() - started < blockMs - EARLY_MS && localNow() - started < blockMs / 2) {
        finish(watch, 'unsupported');
        return;
      }
    }
  }

  return {
    get reads() {
      return reads;
    },

    wait(point, until, signal, pause = timerPause) {
      const read = redis.blockingRead?.bind(redis);
      if (read === undefined) return Promise.resolve('unsupported');
      if (signal?.aborted === true) return Promise.resolve('timeout');
      const now = clock.now();
      const due = point.dueAt !== null && point.dueAt <= until;
      const stop = due ? (point.dueAt as number) : until;
      if (stop <= now) return Promise.resolve(due ? 'due' : 'timeout');
      const key = `${point.scope}\n${point.keys.join('\n')}\n${point.ids.join('\n')}`;
      let watch = watches.get(key);
      if (watch === undefined) {
        watch = { point, key, waiters: new Set(), fired: false, running: false, read: undefined, readEnd: 0 };
        watches.set(key, watch);
      }
      latest.set(point.scope, watch);
      const joined = watch;
      return new Promise<WaitOutcome>((resolve) => {
        const timer = new AbortController();
        let settled = false;
        const onAbort = () => {
          waiter.settle('timeout');
          leave(joined, waiter, true);
        };
        const waiter: Waiter = {
          end: localNow() + (stop - now),
          due,
          settle: (outcome) => {
            if (settled) return;
            settled = true;
            timer.abort();
            signal?.removeEventListener('abort', onAbort);
            resolve(outcome);
          },
        };
        joined.waiters.add(waiter);
        const elapse = () => {
          if (settled) return;
          waiter.settle(waiter.due ? 'due' : 'timeout');
          leave(joined, waiter, false);
        };
        pause(stop - now, timer.signal).then(elapse, elapse);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (!joined.running) void run(joined, read);
      });
    },

    active(scope, consumer) {
      const watch = latest.get(scope);
      if (watch === undefined || watch.fired || watch.read === undefined) return null;
      const { dueAt } = watch.point;
      const now = clock.now();
      if (dueAt !== null && dueAt <= now) return null;
      const seen = lastReal.get(`${scope}\n${consumer}`);
      if (seen === undefined || now - seen >= livenessMs) return null;
      return watch.point;
    },

    consumed(scope, consumer) {
      if (lastReal.size >= 10_000) lastReal.clear();
      lastReal.set(`${scope}\n${consumer}`, clock.now());
    },
  };
}

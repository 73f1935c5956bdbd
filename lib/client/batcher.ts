/**
 * Coalesces ids into few calls: ids added within `lingerMs` of the oldest waiting one (or, with 0,
 * in one turn of the event loop: sent on the next tick of the worker's timers, so handlers that
 * finish together are acked together) go in one call, and the ids that arrive while a call is in
 * flight wait for the next one (up to `max` per call), which lingers from the oldest of them. A busy worker sends one ack per round trip
 * instead of one per message; a worker whose messages finish one at a time, a few milliseconds
 * apart, sends one per linger instead of one each. `flush` cuts the wait short (a stopping worker
 * does not linger).
 */
import { sleepOn, systemTimers, type Timers } from './timers.ts';

export interface Batcher {
  add(id: string): void;
  /** Resolves once every id added so far has been sent and its call has settled. */
  idle(): Promise<void>;
  /** Whether ids are waiting or a call is in flight. */
  busy(): boolean;
  /** Sends what waits now instead of after the linger, and every later id without one. */
  flush(): void;
}

/**
 * `send` must not reject: it reports its own failures (the batcher only sequences the calls).
 * @example
 * const acks = createBatcher((ids) => group.ack(ids).then(done, report), 1000);
 * acks.add(message.id);
 */
export function createBatcher(
  send: (ids: string[]) => Promise<void>,
  max: number,
  timers: Timers = systemTimers,
  lingerMs = 0,
): Batcher {
  const queued: string[] = [];
  /** When the oldest id waiting was added. */
  let oldestAt = 0;
  let running: Promise<void> | undefined;
  let flushed = false;
  const lingering = new AbortController();

  const drain = async () => {
    for (let first = true; queued.length > 0; first = false) {
      // Each call lingers from its oldest id, those that came during the previous call too: else
      // a worker whose acks arrive one per round trip would send them one per call.
      const wait = flushed ? 0 : Math.max(0, lingerMs - (timers.now() - oldestAt));
      if (first || wait > 0) await sleepOn(timers, wait, lingering.signal);
      // Ids left past `max` are older still: their call goes without lingering.
      await send(queued.splice(0, max));
    }
    running = undefined;
  };

  return {
    add(id) {
      if (queued.length === 0) oldestAt = timers.now();
      queued.push(id);
      running ??= drain();
    },
    idle: () => running ?? Promise.resolve(),
    busy: () => running !== undefined,
    flush() {
      flushed = true;
      lingering.abort();
    },
  };
}

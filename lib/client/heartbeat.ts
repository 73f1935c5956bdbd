/**
 * Lease renewal for a worker: every `intervalMs` (a third of the visibility timeout, so a lease
 * survives two failed renewals) it extends the leases of the messages the worker still holds, in
 * calls of up to 1,000 ids, and reports the ids the service says are lost or cancelled. One renewal at a time;
 * each call is given one interval before the next tick tries again.
 */
import { CALL_RULES } from '../queue/rules.ts';
import { systemTimers, type Timers } from './timers.ts';

export interface HeartbeatOptions {
  intervalMs: number;
  /** The ids to renew now. */
  held: () => string[];
  extend: (
    ids: string[],
    signal: AbortSignal,
  ) => Promise<{ extended: string[]; lost: string[]; cancelled?: string[] }>;
  onExtended: (ids: string[]) => void;
  onLost: (ids: string[]) => void;
  /** Ids the service says were cancelled (cancelMessage) while held. */
  onCancelled?: (ids: string[]) => void;
  onError: (error: unknown) => void;
  /** Default: the runtime's. */
  timers?: Timers;
}

export interface Heartbeat {
  /** No tick after this; a renewal in flight finishes on its own. */
  stop(): void;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const timers = options.timers ?? systemTimers;
  let stopped = false;
  let timer: unknown;

  const renew = async (ids: string[]) => {
    const controller = new AbortController();
    const limit = timers.setTimeout(() => controller.abort(), options.intervalMs);
    try {
      const { extended, lost, cancelled = [] } = await options.extend(ids, controller.signal);
      if (extended.length > 0) options.onExtended(extended);
      if (lost.length > 0) options.onLost(lost);
      if (cancelled.length > 0) options.onCancelled?.(cancelled);
    } catch (error) {
      options.onError(error);
    } finally {
      timers.clearTimeout(limit);
    }
  };

  const tick = async () => {
    const started = timers.now();
    const ids = options.held();
    const calls: Promise<void>[] = [];
    for (let i = 0; i < ids.length; i += CALL_RULES.ids.max)
      calls.push(renew(ids.slice(i, i + CALL_RULES.ids.max)));
    await Promise.all(calls);
    if (!stopped) timer = timers.setTimeout(run, Math.max(0, options.intervalMs - (timers.now() - started)));
  };
  const run = () => {
    // tick() never rejects: renew() reports its own failures.
    void tick();
  };

  timer = timers.setTimeout(run, options.intervalMs);
  return {
    stop() {
      stopped = true;
      timers.clearTimeout(timer);
    },
  };
}

/**
 * Lease renewal for a worker: every `intervalMs` (a third of the visibility timeout, so a lease
 * survives two failed renewals) it extends the leases of the messages the worker still holds, in
 * calls of up to 1,000 ids, and reports the ids the service says are lost. One renewal at a time;
 * each call is given one interval before the next tick tries again.
 */
import { CALL_RULES } from '../queue/rules.ts';

export interface HeartbeatOptions {
  intervalMs: number;
  /** The ids to renew now. */
  held: () => string[];
  extend: (ids: string[], signal: AbortSignal) => Promise<{ extended: string[]; lost: string[] }>;
  onExtended: (ids: string[]) => void;
  onLost: (ids: string[]) => void;
  onError: (error: unknown) => void;
}

export interface Heartbeat {
  /** No tick after this; a renewal in flight finishes on its own. */
  stop(): void;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const renew = async (ids: string[]) => {
    const controller = new AbortController();
    const limit = setTimeout(() => controller.abort(), options.intervalMs);
    try {
      const { extended, lost } = await options.extend(ids, controller.signal);
      if (extended.length > 0) options.onExtended(extended);
      if (lost.length > 0) options.onLost(lost);
    } catch (error) {
      options.onError(error);
    } finally {
      clearTimeout(limit);
    }
  };

  const tick = async () => {
    const started = Date.now();
    const ids = options.held();
    const calls: Promise<void>[] = [];
    for (let i = 0; i < ids.length; i += CALL_RULES.ids.max)
      calls.push(renew(ids.slice(i, i + CALL_RULES.ids.max)));
    await Promise.all(calls);
    if (!stopped) timer = setTimeout(run, Math.max(0, options.intervalMs - (Date.now() - started)));
  };
  const run = () => {
    // tick() never rejects: renew() reports its own failures.
    void tick();
  };

  timer = setTimeout(run, options.intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

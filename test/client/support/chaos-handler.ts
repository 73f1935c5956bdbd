/**
 * The handler behaviours of the worker chaos test, shared by the workers in the test process and
 * the one in the child process: by message index, 1% poison (always throws), 5% long (runs 2.5x
 * the visibility timeout), 8% flaky (throws on its first delivery), the rest quick.
 */
import type { Handler, Message } from '../../../lib/client/index.ts';

export type Kind = 'poison' | 'long' | 'flaky' | 'ok';

/** Disjoint by construction: i ≡ 0 (mod 100), i ≡ 1 (mod 20), i ≡ 2 or 3 (mod 25) never meet. */
export function kindOf(i: number): Kind {
  if (i % 100 === 0) return 'poison';
  if (i % 20 === 1) return 'long';
  if (i % 25 === 2 || i % 25 === 3) return 'flaky';
  return 'ok';
}

export interface ChaosBody {
  i: number;
  kind: Kind;
}

export interface Run {
  id: string;
  deliveries: number;
  kind: Kind;
}

/**
 * The handler, reporting each run's start and end. `end` is told before the handler returns, so
 * a successful end is known before its ack is sent.
 */
export function chaosHandler(
  visibilityTimeoutMs: number,
  report: { start(run: Run): void; end(run: Run, outcome: 'ok' | 'threw'): void },
): Handler {
  return async (message: Message) => {
    const { kind } = message.body as ChaosBody;
    const run: Run = { id: message.id, deliveries: message.deliveries, kind };
    report.start(run);
    try {
      if (kind === 'poison') throw new Error('poison');
      if (kind === 'flaky' && message.deliveries === 1) throw new Error('flaky, first delivery');
      await new Promise((resolve) =>
        setTimeout(resolve, kind === 'long' ? visibilityTimeoutMs * 2.5 : Math.floor(Math.random() * 4)),
      );
    } catch (error) {
      report.end(run, 'threw');
      throw error;
    }
    report.end(run, 'ok');
  };
}

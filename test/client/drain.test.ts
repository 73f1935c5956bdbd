/**
 * `drain` against the real service, on a manual clock shared by the worker and the in-process
 * service (see worker.test.ts): a cron-sized run that works a backlog within its budget, stops on
 * an empty poll when asked, and at the end of its budget stops as `stop()` does.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type DrainReport, isApiError } from '../../lib/client/index.ts';
import { type ManualService, startManualService } from './support/manual-service.ts';
import { uniqueName } from './support/service.ts';

let manual: ManualService;
beforeAll(async () => {
  manual = await startManualService();
});

/** Advances the manual clock until the drain ends; its report, or its error thrown. */
const finished = (drain: Promise<DrainReport>) => manual.timers.run(drain);

async function backlog(prefix: string, count: number) {
  const q = manual.client.queue(uniqueName(prefix));
  const ids = await q.produce(
    Array.from({ length: count }, (_, i) => ({ body: i % 10 === 0 ? 'flaky' : i })),
  );
  const g = q.group('g');
  await g.create({ start: '0' });
  return { q, g, ids };
}

describe('drain', () => {
  it('works a backlog to the end, retrying what threw, and stops on the first empty poll', async () => {
    const { g, ids } = await backlog('drain', 30);
    const handled = new Set<string>();
    const started = manual.harness.clock.now();
    const report = await finished(
      g.drain(
        (message) => {
          if (message.body === 'flaky' && message.deliveries === 1) throw new Error('first time');
          handled.add(message.id);
        },
        {
          budgetMs: 15_000,
          concurrency: 4,
          waitMs: 200,
          stopWhenEmpty: true,
          timers: manual.timers,
          onError: () => undefined,
        },
      ),
    );
    expect(report).toMatchObject({
      processed: 33,
      acked: 30,
      failed: 3,
      returned: 0,
      lost: 0,
      stoppedBy: 'empty',
    });
    // It stopped at the empty poll, long before the budget.
    expect(report.durationMs).toBe(manual.harness.clock.now() - started);
    expect(report.durationMs).toBeLessThan(1000);
    expect([...handled].sort()).toEqual([...ids].sort());
    expect(await g.pending()).toMatchObject({ pending: 0 });
  });

  it('stops when the budget is spent: running handlers finish and are acked, the rest go back at once', async () => {
    const { g, ids } = await backlog('budget', 50);
    const finishedIds: string[] = [];
    const consumer = uniqueName('cron');
    const report = await finished(
      g.drain(
        async (message) => {
          await manual.timers.sleep(100);
          finishedIds.push(message.id);
        },
        { budgetMs: 350, concurrency: 2, batch: 10, consumer, timers: manual.timers },
      ),
    );
    // 350 ms of 100 ms handlers, two at a time: 4 rounds started (at 0, 100, 200, 300), all finish.
    expect(report).toMatchObject({ stoppedBy: 'budget', processed: 8, acked: 8, failed: 0, lost: 0 });
    expect(report.durationMs).toBe(400);
    expect(finishedIds).toHaveLength(8);
    expect(report.returned).toBeGreaterThan(0);
    const mine = await g.pending({ consumer, count: 1000 });
    expect(mine).toHaveLength(report.returned);
    for (const entry of mine) expect(entry.state).toBe('retrying');
    const rest = await g.consume({ consumer: 'next', count: 1000 });
    expect(rest.length + finishedIds.length).toBe(ids.length);
  });

  it('rejects when the group does not exist', async () => {
    const q = manual.client.queue(uniqueName('drain-missing'));
    await q.configure();
    const error = await finished(
      q
        .group('ghost')
        .drain(() => undefined, { budgetMs: 1000, timers: manual.timers, onError: () => undefined }),
    ).catch((e: unknown) => e);
    expect(isApiError(error, 'GROUP_NOT_FOUND')).toBe(true);
  });
});

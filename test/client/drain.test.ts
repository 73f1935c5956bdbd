/**
 * `drain` against the real service over HTTP: a cron-sized run that works a backlog within its
 * budget, stops on an empty poll when asked, and at the end of its budget stops as `stop()` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../../lib/client/index.ts';
import { startService, type TestService, uniqueName } from './support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function backlog(prefix: string, count: number) {
  const q = service.client().queue(uniqueName(prefix));
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
    const report = await g.drain(
      (message) => {
        if (message.body === 'flaky' && message.deliveries === 1) throw new Error('first time');
        handled.add(message.id);
      },
      { budgetMs: 15_000, concurrency: 4, waitMs: 200, stopWhenEmpty: true, onError: () => undefined },
    );
    expect(report).toMatchObject({
      processed: 33,
      acked: 30,
      failed: 3,
      returned: 0,
      lost: 0,
      stoppedBy: 'empty',
    });
    expect([...handled].sort()).toEqual([...ids].sort());
    expect(await g.pending()).toMatchObject({ pending: 0 });
  });

  it('stops when the budget is spent: running handlers finish and are acked, the rest go back at once', async () => {
    const { g, ids } = await backlog('budget', 50);
    const finished: string[] = [];
    const consumer = uniqueName('cron');
    const report = await g.drain(
      async (message) => {
        await pause(100);
        finished.push(message.id);
      },
      { budgetMs: 350, concurrency: 2, batch: 10, consumer },
    );
    expect(report.stoppedBy).toBe('budget');
    expect(report.processed).toBe(finished.length);
    expect(report.acked).toBe(finished.length);
    expect(report.returned).toBeGreaterThan(0);
    for (const entry of await g.pending({ consumer, count: 1000 })) expect(entry.state).toBe('retrying');
    const rest = await g.consume({ consumer: 'next', count: 1000 });
    expect(rest.length + finished.length).toBe(ids.length);
  });

  it('rejects when the group does not exist', async () => {
    const q = service.client().queue(uniqueName('drain-missing'));
    await q.configure();
    const error = await q
      .group('ghost')
      .drain(() => undefined, { budgetMs: 1000, onError: () => undefined })
      .catch((e: unknown) => e);
    expect(isApiError(error, 'GROUP_NOT_FOUND')).toBe(true);
  });
});

/**
 * The client's round trip that each runtime runs with the code it ships (workerd, deno): set up
 * a queue and group, produce, work every message with `group.work`, stop, and report what was
 * handled and what is left pending. Web standards only, like lib/client.
 */
import { createQueueClient, type WorkerStats } from '../../../lib/client/index.ts';

export interface RoundTrip {
  ids: string[];
  handled: { id: string; body: unknown; attributes: Record<string, string>; deliveries: number }[];
  stats: WorkerStats;
  pendingAfter: number;
}

export async function clientRoundTrip(url: string, token: string, queue: string): Promise<RoundTrip> {
  const q = createQueueClient({ url, token }).queue(queue);
  await q.configure({ visibilityTimeoutMs: 3000 });
  const group = q.group('workers');
  await group.create({ start: '0' });
  const ids = await q.produce([
    { body: { n: 1 } },
    { body: 'two', attributes: { kind: 'text' } },
    { body: [3], dedupId: 'three' },
  ]);
  const handled: RoundTrip['handled'] = [];
  let allHandled: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allHandled = resolve;
  });
  const worker = group.work(
    (message) => {
      handled.push({
        id: message.id,
        body: message.body,
        attributes: message.attributes,
        deliveries: message.deliveries,
      });
      if (handled.length === ids.length) allHandled();
    },
    { concurrency: 2, waitMs: 1000 },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);
  await worker.stop();
  const pending = await group.pending();
  return { ids, handled, stats: worker.stats(), pendingAfter: pending.pending };
}

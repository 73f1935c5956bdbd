/**
 * The real service in-process on a manual clock, for the worker's time-driven tests: the API's
 * test harness (the real queue on the in-process engine), its long polls waiting on the same
 * manual timers the worker is given, and a client whose fetch calls the app directly. Leases
 * expire, heartbeats tick and polls time out only as the test advances the clock.
 */
import { createQueueClient, type QueueClient } from '../../../lib/client/index.ts';
import { createHarness, type Harness, tokens } from '../../api/support/harness.ts';
import { createManualTimers, type ManualTimers } from './manual-timers.ts';

export interface ManualService {
  harness: Harness;
  timers: ManualTimers;
  client: QueueClient;
}

export async function startManualService(): Promise<ManualService> {
  let timers: ManualTimers | undefined;
  const harness = await createHarness({
    sleep: (ms, signal) => (timers as ManualTimers).sleep(ms, signal),
  });
  timers = createManualTimers(harness.clock);
  const client = createQueueClient({
    url: 'http://queue.test',
    token: tokens.admin,
    // As fetch does: an abort rejects at once, while the service goes on with what it received.
    fetch: (input, init) =>
      new Promise<Response>((resolve, reject) => {
        const { signal } = init;
        if (signal?.aborted === true) return reject(signal.reason);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        Promise.resolve(harness.app.request(input, init)).then(resolve, reject);
      }),
  });
  return { harness, timers, client };
}

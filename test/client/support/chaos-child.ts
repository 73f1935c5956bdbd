/**
 * The worker of the chaos test that runs in its own process (and is killed with SIGKILL): works
 * the queue named in CHAOS_QUEUE with concurrency 8 and reports, one JSON line per event on
 * stdout (synchronous on a pipe), what it fetched, started, finished and acked, and any message
 * it found running twice at once.
 */
import { createQueueClient } from '../../../lib/client/index.ts';
import { chaosHandler } from './chaos-handler.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const running = new Set<string>();
const visibilityTimeoutMs = Number(env('CHAOS_VISIBILITY_TIMEOUT_MS'));

const worker = createQueueClient({ url: env('CHAOS_URL'), token: env('CHAOS_TOKEN') })
  .queue(env('CHAOS_QUEUE'))
  .group(env('CHAOS_GROUP'))
  .work(
    chaosHandler(visibilityTimeoutMs, {
      start(run) {
        if (running.has(run.id)) print({ t: 'twice', id: run.id });
        running.add(run.id);
        print({ t: 'start', ...run });
      },
      end(run, outcome) {
        running.delete(run.id);
        print({ t: 'end', ...run, outcome });
      },
    }),
    {
      consumer: env('CHAOS_CONSUMER'),
      concurrency: 8,
      waitMs: 1000,
      onEvent: (event) => {
        if (event.type === 'fetched' && event.ids.length > 0) print({ t: 'fetched', ids: event.ids });
        else if (event.type === 'acked') print({ t: 'acked', ids: event.ids });
        else if (event.type === 'lost') print({ t: 'lost', ids: event.ids });
        else if (event.type === 'ready') print({ t: 'ready' });
      },
      onError: () => undefined,
    },
  );
worker.done.catch((error: unknown) => {
  print({ t: 'fatal', error: String(error) });
  process.exit(1);
});

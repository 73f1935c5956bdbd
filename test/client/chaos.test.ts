/**
 * The worker under chaos, against the real service over HTTP: 2,000 messages, three workers with
 * concurrency 8 (A and B in this process, C in a child process), handlers that throw once (8%),
 * run 2.5x the visibility timeout (5%) or always throw (1%, poison). C is killed with SIGKILL
 * midway, B is stopped with `stop()` midway, A works to the end. End state: every good message
 * handled and acked, the poison in the DLQ, no message in two handlers of one process at once,
 * B's consumer holding nothing, and every long message whose first delivery no kill or stop
 * disturbed handled once with its delivery count still 1: the heartbeat kept its lease. A's
 * consume answers are lost now and then after the service ran them (read whole, then the fetch
 * fails): the client's retry with the same attemptId gets those messages as first deliveries, so
 * nothing is lost and nothing reaches the DLQ that a handler did not fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Worker, WorkerEvent } from '../../lib/client/index.ts';
import { type ChaosBody, chaosHandler, type Kind, kindOf, type Run } from './support/chaos-handler.ts';
import { startService, type TestService, tokens, uniqueName } from './support/service.ts';

const MESSAGES = 2000;
const VISIBILITY_TIMEOUT_MS = 1000;
const childScript = fileURLToPath(new URL('./support/chaos-child.ts', import.meta.url));

type WorkerName = 'A' | 'B' | 'C';
interface Record {
  worker: WorkerName;
  deliveries: number;
  outcome?: 'ok' | 'threw';
}

let service: TestService;
let child: ChildProcess | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  service = await startService();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await service.close();
  process.off('unhandledRejection', onUnhandled);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that loses every fourth consume answer that carried messages: the service ran the
 * consume and wrote its answer whole (no give-back), then the connection "fails" before the client
 * sees it. A retry (the same attemptId) is never lost. `lostIds` collects what the lost answers held
 * (id → delivery count).
 */
function losingAnswers(lostIds: Map<string, number>) {
  let answered = 0;
  const dropped = new Set<string>();
  return async (input: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (!input.endsWith('/consume') || response.status !== 200) return response;
    const text = await response.text();
    const attemptId = (JSON.parse(String(init.body)) as { attemptId?: string }).attemptId ?? '';
    const messages = (JSON.parse(text) as { messages: { id: string; deliveries: number }[] }).messages;
    if (messages.length > 0 && !dropped.has(attemptId) && ++answered % 4 === 0) {
      dropped.add(attemptId);
      for (const m of messages) lostIds.set(m.id, m.deliveries);
      throw new TypeError('fetch failed (the test lost this answer)');
    }
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

it('ends with every good message acked, the poison dead-lettered, and long handlers kept by the heartbeat', async () => {
  const client = service.client();
  const q = client.queue(uniqueName('chaos'));
  await q.configure({ visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS, maxDeliveries: 5 });
  const group = q.group('workers');
  await group.create({ start: '0' });
  const kinds = new Map<string, Kind>();
  for (let i = 0; i < MESSAGES; i += 1000) {
    const bodies = Array.from({ length: 1000 }, (_, k): ChaosBody => ({ i: i + k, kind: kindOf(i + k) }));
    const ids = await q.produce(bodies.map((body) => ({ body })));
    for (const [k, id] of ids.entries()) kinds.set(id, bodies[k]!.kind);
  }

  const runs = new Map<string, Record[]>();
  const record = (worker: WorkerName, run: Run) => {
    const list = runs.get(run.id) ?? [];
    list.push({ worker, deliveries: run.deliveries });
    runs.set(run.id, list);
  };
  const finish = (worker: WorkerName, run: Run, outcome: 'ok' | 'threw') => {
    const open = runs.get(run.id)?.findLast((r) => r.worker === worker && r.outcome === undefined);
    if (open !== undefined) open.outcome = outcome;
  };
  const twice: string[] = [];
  const cSaw = new Set<string>();
  const bReturned = new Set<string>();
  const lost: string[] = [];
  let acked = 0;

  // C: a child process, SIGKILLed midway. Its reports come as JSON lines.
  let childLog = '';
  let cReady = false;
  child = spawn(process.execPath, ['--import', 'tsx', childScript], {
    env: {
      ...process.env,
      CHAOS_URL: service.url,
      CHAOS_TOKEN: tokens.admin,
      CHAOS_QUEUE: q.name,
      CHAOS_GROUP: 'workers',
      CHAOS_CONSUMER: 'C',
      CHAOS_VISIBILITY_TIMEOUT_MS: String(VISIBILITY_TIMEOUT_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<string | number | null>((resolve) =>
    child!.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  let pendingText = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pendingText += chunk.toString();
    const lines = pendingText.split('\n');
    pendingText = lines.pop() ?? '';
    for (const line of lines) {
      const event = JSON.parse(line) as { t: string; ids?: string[]; id?: string } & Run & {
          outcome: 'ok' | 'threw';
        };
      if (event.t === 'ready') cReady = true;
      else if (event.t === 'fetched') for (const id of event.ids!) cSaw.add(id);
      else if (event.t === 'start') record('C', event);
      else if (event.t === 'end') finish('C', event, event.outcome);
      else if (event.t === 'acked') acked += event.ids!.length;
      else if (event.t === 'twice') twice.push(`C:${event.id}`);
      else if (event.t === 'lost') lost.push(...event.ids!.map((id) => `C:${id}`));
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    childLog += chunk.toString();
  });

  // A and B: in this process; one set of running ids for both, so a message in two handlers of
  // this process at once shows.
  const runningHere = new Set<string>();
  const lostAnswers = new Map<string, number>();
  const lossyGroup = service
    .client({ fetch: losingAnswers(lostAnswers), retry: { baseMs: 1, maxMs: 20 } })
    .queue(q.name)
    .group('workers');
  const inProcess = (name: 'A' | 'B') => {
    const events: WorkerEvent[] = [];
    const worker: Worker = (name === 'A' ? lossyGroup : group).work(
      chaosHandler(VISIBILITY_TIMEOUT_MS, {
        start(run) {
          if (runningHere.has(run.id)) twice.push(`${name}:${run.id}`);
          runningHere.add(run.id);
          record(name, run);
        },
        end(run, outcome) {
          runningHere.delete(run.id);
          finish(name, run, outcome);
        },
      }),
      {
        consumer: name,
        concurrency: 8,
        waitMs: 1000,
        shutdownGraceMs: 10_000,
        onEvent: (event) => {
          events.push(event);
          if (event.type === 'acked') acked += event.ids.length;
          if (event.type === 'lost') lost.push(...event.ids.map((id) => `${name}:${id}`));
          if (event.type === 'nacked' && name === 'B' && event.reason !== 'failed') {
            for (const id of event.ids) bReturned.add(id);
          }
        },
        onError: () => undefined,
      },
    );
    return { worker, events };
  };

  const deadline = Date.now() + 50_000;
  const waitFor = async (check: () => boolean | Promise<boolean>, what: string) => {
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; child:\n${childLog}`);
      await pause(20);
    }
  };
  await waitFor(() => cReady, 'the child worker');
  const a = inProcess('A');
  const b = inProcess('B');

  // Midway: kill C while it holds messages, then stop B.
  await waitFor(
    () =>
      acked >= 600 &&
      [...runs.values()].some((list) => list.some((r) => r.worker === 'C' && r.outcome === undefined)),
    'C running midway',
  );
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  await waitFor(() => acked >= 1000, 'half the messages');
  await b.worker.stop();
  // B's consumer holds nothing: whatever it still appears on is given back and due now.
  const now = Date.now();
  const bHolds = await group.pending({ consumer: 'B', count: 1000 });
  for (const entry of bHolds) {
    expect(entry.state).toBe('retrying');
    expect(entry.eligibleAt).toBeLessThanOrEqual(now);
  }
  expect(b.worker.stats()).toMatchObject({ running: 0, held: 0, lost: 0 });
  expect(b.events.some((e) => e.type === 'nacked' && e.reason === 'abandoned')).toBe(false);

  // A works to the end: nothing undelivered, nothing pending, and the poison dead-lettered.
  const poison = [...kinds].filter(([, kind]) => kind === 'poison').map(([id]) => id);
  await waitFor(async () => {
    const stats = await q.stats();
    const g = stats.groups[0]!;
    return g.pending === 0 && g.lag === 0 && stats.deadLetters === poison.length;
  }, 'the queue to drain');
  await a.worker.stop();

  const stats = await q.stats();
  expect(stats).toMatchObject({ length: MESSAGES, deadLetters: 20, delayed: 0 });
  expect(stats.groups).toMatchObject([{ name: 'workers', pending: 0, lag: 0 }]);
  const dlq = await q.dlq.list({ count: 1000 });
  expect(dlq.deadLetters.map((d) => d.deadLetteredFrom).sort()).toEqual(poison.sort());
  for (const letter of dlq.deadLetters) expect(letter.deliveries).toBe(5);

  // Every good message was handled to success (acked: the group has nothing pending and only
  // the poison went to the DLQ); the poison never succeeded.
  for (const [id, kind] of kinds) {
    const ok = (runs.get(id) ?? []).filter((r) => r.outcome === 'ok');
    if (kind === 'poison') expect(ok).toEqual([]);
    else expect(ok.length, `${kind} ${id}`).toBeGreaterThanOrEqual(1);
  }
  expect(twice).toEqual([]);
  expect(lost.filter((entry) => !entry.startsWith('C:'))).toEqual([]);
  expect(a.worker.stats()).toMatchObject({ running: 0, held: 0 });

  // Long messages: unless the kill, the stop or a poll they cut short touched the first delivery,
  // one run, delivery count 1, success.
  let undisturbed = 0;
  for (const [id, kind] of kinds) {
    if (kind !== 'long') continue;
    const list = runs.get(id) ?? [];
    const firstSeen = list.some((r) => r.deliveries === 1);
    if (cSaw.has(id) || bReturned.has(id) || !firstSeen) continue;
    undisturbed++;
    expect(list, id).toEqual([{ worker: list[0]!.worker, deliveries: 1, outcome: 'ok' }]);
  }
  expect(undisturbed).toBeGreaterThanOrEqual(50);

  // Lost answers: some were lost, and each message they held reached A's handler with the
  // delivery count of the lost answer, through the retry with the same attemptId: no delivery was
  // spent on the loss, none waited out a lease.
  expect(lostAnswers.size).toBeGreaterThan(0);
  for (const [id, deliveries] of lostAnswers) {
    expect(runs.get(id), id).toContainEqual(expect.objectContaining({ worker: 'A', deliveries }));
  }

  expect(unhandled).toEqual([]);
}, 90_000);

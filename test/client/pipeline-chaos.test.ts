/**
 * Ack-and-produce under chaos, against the real service over HTTP: a three-stage pipeline
 * (inputs → stage 1 → stage 2 → stage 3, each stage's handler returning `outputs(...)` for the
 * next queue), 2,000 inputs, two workers per stage with concurrency 8. Handlers throw once for 5%
 * of the messages (nacked, retried); every fourth ack-and-produce answer of each stage's first
 * worker is lost after the service ran it (the client retries it: the retry finds the message
 * acked and its results deduplicated); each stage's second worker crashes midway (every request
 * fails from then on, nothing it holds is acked or given back: its messages come back after the
 * visibility timeout, to the other worker, which produces their results once). End state: every
 * stage's queue holds each input's result exactly once, nothing lost, nothing pending.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Message, outputs, type Worker } from '../../lib/client/index.ts';
import { startService, type TestService, uniqueName } from './support/service.ts';

const INPUTS = 2000;
const VISIBILITY_TIMEOUT_MS = 2000;
const STAGES = 3;

let service: TestService;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  service = await startService();
});
afterAll(async () => {
  await service.close();
  process.off('unhandledRejection', onUnhandled);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Loses every fourth ack-and-produce answer after the service ran it (never a retry's). */
function losingAckAnswers(lost: { count: number }) {
  let seen = 0;
  const retried = new Set<string>();
  return async (input: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const body = String(init.body ?? '');
    if (!input.endsWith('/ack') || !body.includes('"produce"') || response.status !== 200) return response;
    const text = await response.text();
    if (!retried.has(body) && ++seen % 4 === 0) {
      retried.add(body);
      lost.count++;
      throw new TypeError('fetch failed (the test lost this answer)');
    }
    return new Response(text, { status: response.status, headers: response.headers });
  };
}

/** A fetch that fails every request once `crashed.now` is set: the process is gone. */
function crashable(crashed: { now: boolean }) {
  return (input: string, init: RequestInit): Promise<Response> =>
    crashed.now ? Promise.reject(new TypeError('fetch failed (crashed)')) : fetch(input, init);
}

interface Item {
  i: number;
  stage: number;
}

it('leaves each result exactly once in every stage, with crashing, retrying and failing workers', async () => {
  const client = service.client();
  const names = Array.from({ length: STAGES + 1 }, (_, k) => uniqueName(`pipe${k}`));
  for (const name of names) {
    await client.queue(name).configure({ visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS, maxDeliveries: 20 });
    await client.queue(name).group('stage').create({ start: '0' });
  }
  for (let i = 0; i < INPUTS; i += 1000) {
    await client
      .queue(names[0] as string)
      .produce(Array.from({ length: 1000 }, (_, k): { body: Item } => ({ body: { i: i + k, stage: 0 } })));
  }

  const threw = new Set<string>();
  const handler = (stage: number) => (message: Message) => {
    const item = message.body as Item;
    // 5% fail once at each stage (nacked, delivered again).
    const key = `${stage}:${item.i}`;
    if (item.i % 20 === stage && !threw.has(key)) {
      threw.add(key);
      throw new Error('a transient failure');
    }
    return outputs(names[stage] as string, [{ body: { i: item.i, stage } satisfies Item }]);
  };

  const lost = { count: 0 };
  const workers: Worker[] = [];
  const crashes: { now: boolean }[] = [];
  for (let stage = 1; stage <= STAGES; stage++) {
    const from = names[stage - 1] as string;
    const steady = service
      .client({ fetch: losingAckAnswers(lost), retry: { baseMs: 1, maxMs: 20 } })
      .queue(from)
      .group('stage');
    const crashed = { now: false };
    crashes.push(crashed);
    const doomed = service
      .client({ fetch: crashable(crashed), retry: false })
      .queue(from)
      .group('stage');
    const options = {
      concurrency: 8,
      waitMs: 200,
      retryDelayMs: 0,
      visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS,
    };
    workers.push(steady.work(handler(stage), { ...options, consumer: `steady-${stage}` }));
    workers.push(doomed.work(handler(stage), { ...options, consumer: `doomed-${stage}`, onError: () => {} }));
  }

  // The doomed workers crash once the pipeline is under way.
  const last = client.queue(names[STAGES] as string);
  const deadline = Date.now() + 80_000;
  while ((await last.stats()).length < INPUTS / 4 && Date.now() < deadline) await pause(50);
  for (const crashed of crashes) crashed.now = true;

  // Done when every stage's queue has a result per input and no stage holds anything.
  const settled = async () => {
    for (let stage = 1; stage <= STAGES; stage++) {
      if ((await client.queue(names[stage] as string).stats()).length < INPUTS) return false;
      const group = (await client.queue(names[stage - 1] as string).stats()).groups.find(
        (g) => g.name === 'stage',
      );
      if (group === undefined || group.pending > 0) return false;
    }
    return true;
  };
  while (!(await settled()) && Date.now() < deadline) await pause(250);
  // It settled (not cut off by the deadline).
  expect(await settled()).toBe(true);
  await Promise.all(workers.map((worker) => worker.stop()));

  // Every stage's queue: each input's result once.
  for (let stage = 1; stage <= STAGES; stage++) {
    const queue = client.queue(names[stage] as string);
    const audit = queue.group('audit');
    await audit.create({ start: '0' });
    const seen: number[] = [];
    for (;;) {
      const got = await audit.consume({ consumer: 'audit', count: 1000 });
      if (got.length === 0) break;
      for (const m of got) {
        const item = m.body as Item;
        expect(item.stage).toBe(stage);
        seen.push(item.i);
      }
      await audit.ack(got.map((m) => m.id));
    }
    expect(seen.length, `stage ${stage} results`).toBe(INPUTS);
    expect(new Set(seen).size, `stage ${stage} distinct results`).toBe(INPUTS);
    expect((await queue.stats()).deadLetters).toBe(0);
  }
  // The chaos happened: answers were lost, and failures retried.
  expect(lost.count).toBeGreaterThan(0);
  expect(threw.size).toBe(STAGES * (INPUTS / 20));
  expect(unhandled).toEqual([]);
}, 100_000);

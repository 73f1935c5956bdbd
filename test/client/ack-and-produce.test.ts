/**
 * Ack-and-produce in the client against the real service over HTTP: a delivered message's
 * `ackAndProduce`, the group's `ackAndProduce`, and a worker whose handler returns `outputs(...)`
 * (acked with its results in one step) beside one that returns anything else (a plain ack).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { outputs } from '../../lib/client/index.ts';
import { startService, type TestService, uniqueName } from './support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

async function queues() {
  const client = service.client();
  const a = client.queue(uniqueName('ap-a'));
  const b = client.queue(uniqueName('ap-b'));
  await a.configure({});
  await b.configure({});
  await a.group('g').create({ start: '0' });
  await b.group('g').create({ start: '0' });
  return { a, b };
}

it("acks a delivered message with its results through the message's own ackAndProduce", async () => {
  const { a, b } = await queues();
  await a.produce([{ body: { n: 1 } }]);
  const [message] = await a.group('g').consume({ consumer: 'c', count: 1 });
  if (message === undefined) throw new Error('no message');
  // The method is not part of the message's data.
  expect(JSON.parse(JSON.stringify(message))).not.toHaveProperty('ackAndProduce');
  const answer = await message.ackAndProduce(b.name, [{ body: { n: 2 } }, { body: { n: 3 } }]);
  expect(answer.acked).toBe(1);
  expect(answer.outcomes).toEqual(['acked']);
  const got = await b.group('g').consume({ consumer: 'w', count: 10 });
  expect(got.map((m) => m.body)).toEqual([{ n: 2 }, { n: 3 }]);
  expect(answer.produced).toEqual(got.map((m) => m.id));
  // Repeated: nothing more.
  expect(await message.ackAndProduce(b.name, [{ body: { n: 2 } }, { body: { n: 3 } }])).toEqual({
    acked: 0,
    outcomes: ['not-pending'],
    produced: [null, null],
  });
  expect((await a.group('g').pending()).pending).toBe(0);
});

it('acks several ids with results that name where they come from', async () => {
  const { a, b } = await queues();
  await a.produce([{ body: 'x' }, { body: 'y' }]);
  const [x, y] = (await a.group('g').consume({ consumer: 'c', count: 2 })).map((m) => m.id) as [
    string,
    string,
  ];
  const answer = await a.group('g').ackAndProduce(
    [x, y],
    {
      queue: b.name,
      messages: [
        { body: 'from-y', from: y },
        { body: 'from-x', from: x },
      ],
    },
    { consumer: 'c' },
  );
  expect(answer.outcomes).toEqual(['acked', 'acked']);
  const got = await b.group('g').consume({ consumer: 'w', count: 10 });
  expect(got.map((m) => m.body).sort()).toEqual(['from-x', 'from-y']);
});

it('runs a worker whose handler returns outputs: each message acked with its results, others acked plainly', async () => {
  const { a, b } = await queues();
  await a.produce([1, 2, 3, 4].map((n) => ({ body: n })));
  const worker = a.group('g').work(
    async (message) => {
      const n = message.body as number;
      // Odd numbers go on doubled; even ones are done here (a return value that is not outputs).
      return n % 2 === 1 ? outputs(b.name, [{ body: n * 2 }]) : { done: n };
    },
    { concurrency: 2, waitMs: 200 },
  );
  const deadline = Date.now() + 10_000;
  while (worker.stats().acked < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await worker.stop();
  expect(worker.stats().acked).toBe(4);
  expect((await a.group('g').pending()).pending).toBe(0);
  const got = await b.group('g').consume({ consumer: 'w', count: 10 });
  expect(got.map((m) => m.body).sort()).toEqual([2, 6]);
});

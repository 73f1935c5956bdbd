/**
 * The typed client against the real service over real HTTP (`npm start`'s server on the
 * in-process engine): every method, the answers it types, and the errors it throws.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient, isApiError, QueueApiError } from '../../lib/client/index.ts';
import { startService, type TestService, tokens, uniqueName } from './support/service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

describe('queues', () => {
  it('configures a queue, reads its config with a consume token, and lists it with its stats', async () => {
    const client = service.client();
    const q = client.queue(uniqueName('cfg'));
    const config = await q.configure({ visibilityTimeoutMs: 12_000, maxDeliveries: 4 });
    expect(config).toMatchObject({ visibilityTimeoutMs: 12_000, maxDeliveries: 4, dedupWindowMs: 300_000 });
    const consumer = service.client({ token: tokens.consume });
    expect(await consumer.queue(q.name).config()).toEqual(config);
    // configure() with no patch changes nothing and answers the config.
    expect(await q.configure()).toEqual(config);
    const listed = await client.queues();
    expect(listed.find((stats) => stats.name === q.name)).toEqual({
      name: q.name,
      partitions: 1,
      paused: false,
      length: 0,
      delayed: 0,
      deadLetters: 0,
      groups: [],
    });
  });

  it('produces in input order, browses, shows stats and deletes (false the second time)', async () => {
    const q = service.client().queue(uniqueName('life'));
    const ids = await q.produce([
      { body: { sku: 42 }, attributes: { tenant: 'acme' } },
      { body: 'two', dedupId: 'd-2' },
      { body: 3, delayMs: 60_000 },
    ]);
    expect(ids).toHaveLength(3);
    expect(ids[2]).toMatch(/^delayed-/);
    const browsed = await q.browse();
    expect(browsed.map((m) => [m.id, m.body, m.attributes])).toEqual([
      [ids[0], { sku: 42 }, { tenant: 'acme' }],
      [ids[1], 'two', {}],
    ]);
    expect(await q.browse({ count: 1 })).toHaveLength(1);
    // The same dedupId answers the first id and adds nothing.
    expect(await q.produce([{ body: 'again', dedupId: 'd-2' }])).toEqual([ids[1]]);
    expect(await q.stats()).toMatchObject({ name: q.name, length: 2, delayed: 1, deadLetters: 0 });
    expect(await q.delete()).toBe(true);
    expect(await q.delete()).toBe(false);
  });

  it('runs the sweep and answers health', async () => {
    const client = service.client();
    expect(await client.sweep({ budget: 1000 })).toMatchObject({ complete: true });
    expect(await client.health()).toEqual({ status: 'ok', redis: 'up' });
  });
});

describe('groups and deliveries', () => {
  it('creates a group once, consumes, acks, nacks, extends and reads the pending list', async () => {
    const q = service.client().queue(uniqueName('deliver'));
    const [a, b, c] = await q.produce([{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    const g = q.group('billing');
    expect(await g.create({ start: '0' })).toBe(true);
    expect(await g.create({ start: '0' })).toBe(false);
    const messages = await g.consume({ consumer: 'w1', count: 2 });
    expect(messages.map((m) => [m.id, m.body, m.deliveries])).toEqual([
      [a, 'a', 1],
      [b, 'b', 1],
    ]);
    expect(await g.pending()).toMatchObject({ pending: 2, consumers: [{ name: 'w1', pending: 2 }] });
    expect(await g.extend('w1', [a!, b!])).toEqual({ extended: [a, b], lost: [], cancelled: [] });
    expect(await g.extend('w2', [a!])).toEqual({ extended: [], lost: [a], cancelled: [] });
    expect(await g.nack([b!], { delayMs: 60_000 })).toBe(1);
    const entries = await g.pending({ consumer: 'w1' });
    expect(entries.map((e) => [e.id, e.state])).toEqual([
      [a, 'leased'],
      [b, 'retrying'],
    ]);
    expect(entries[1]!.eligibleAt).toBeGreaterThan(Date.now() + 50_000);
    expect(await g.ack([a!])).toBe(1);
    expect(await g.ack([a!])).toBe(0);
    // An empty range object still answers entries, not the summary.
    expect((await g.pending({})).map((e) => e.id)).toEqual([b]);
    const next = await g.consume({ consumer: 'w1', count: 10, waitMs: 0 });
    expect(next.map((m) => m.id)).toEqual([c]);
  });

  it('waits for a message with a long poll', async () => {
    const q = service.client().queue(uniqueName('poll'));
    const g = q.group('g');
    await g.create({ start: '0' });
    const polled = g.consume({ consumer: 'w1', waitMs: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [id] = await q.produce([{ body: 'late' }]);
    expect((await polled).map((m) => m.id)).toEqual([id]);
  });

  it('reclaims idle messages with a cursor', async () => {
    const q = service.client().queue(uniqueName('reclaim'));
    const [id] = await q.produce([{ body: 1 }]);
    const g = q.group('g');
    await g.create({ start: '0' });
    await g.consume({ consumer: 'dead' });
    const taken = await g.reclaim({ consumer: 'alive', minIdleMs: 0 });
    expect(taken.cursor).toBe('0-0');
    expect(taken.messages.map((m) => [m.id, m.deliveries])).toEqual([[id, 2]]);
    expect(taken.deleted).toEqual([]);
    expect(await g.delete()).toBe(true);
    expect(await g.delete()).toBe(false);
  });
});

describe('pause, lookup and schedules', () => {
  it('pauses and resumes a queue and a group: a paused one delivers nothing', async () => {
    const q = service.client().queue(uniqueName('pause'));
    const [id] = await q.produce([{ body: 'held' }]);
    const g = q.group('g');
    await g.create({ start: '0' });
    expect(await q.pause()).toEqual({ queue: q.name, paused: true });
    expect(await g.consume({ consumer: 'c' })).toEqual([]);
    expect(await q.resume()).toEqual({ queue: q.name, paused: false });
    expect(await g.pause()).toEqual({ queue: q.name, group: 'g', paused: true });
    expect((await q.stats()).groups).toMatchObject([{ name: 'g', paused: true }]);
    expect(await g.consume({ consumer: 'c' })).toEqual([]);
    await g.resume();
    expect((await g.consume({ consumer: 'c' })).map((m) => m.id)).toEqual([id]);
  });

  it('looks a message up by id with its state in each group', async () => {
    const q = service.client().queue(uniqueName('lookup'));
    const [id] = await q.produce([{ body: { n: 1 } }]);
    await q.group('g').create({ start: '0' });
    await q.group('g').consume({ consumer: 'c' });
    const found = await q.message(id!);
    expect(found).toMatchObject({ id, state: 'stream', body: { n: 1 }, deadLetters: [] });
    expect(found.groups).toMatchObject([{ group: 'g', state: 'pending', consumer: 'c', deliveries: 1 }]);
    const error = await q.message('1-1').catch((e: unknown) => e);
    expect(isApiError(error, 'MESSAGE_NOT_FOUND')).toBe(true);
  });

  it('sets, lists and deletes a recurring schedule (false the second time)', async () => {
    const q = service.client().queue(uniqueName('sched'));
    await q.configure();
    const set = await q.schedules.set('nightly', {
      cron: '0 3 * * *',
      message: { body: { report: 'daily' } },
    });
    expect(set).toMatchObject({
      name: 'nightly',
      cron: '0 3 * * *',
      timezone: 'UTC',
      message: { body: { report: 'daily' } },
    });
    expect(set.nextRunAt).toBeGreaterThan(Date.now());
    expect((await q.schedules.list()).map((s) => s.name)).toEqual(['nightly']);
    expect(await q.schedules.delete('nightly')).toBe(true);
    expect(await q.schedules.delete('nightly')).toBe(false);
    expect(await q.schedules.list()).toEqual([]);
  });
});

describe('calls with no ids', () => {
  it('answers ack, nack, extend and redrive of no ids without sending a request', async () => {
    let requests = 0;
    const client = service.client({
      fetch: (input, init) => {
        requests++;
        return fetch(input, init);
      },
    });
    const q = client.queue(uniqueName('empty'));
    const g = q.group('never-created');
    expect(await g.ack([])).toBe(0);
    expect(await g.nack([], { delayMs: 10 })).toBe(0);
    expect(await g.extend('c', [])).toEqual({ extended: [], lost: [], cancelled: [] });
    expect(await q.dlq.redrive([])).toBe(0);
    expect(requests).toBe(0);
    // A real id still goes out, and the missing queue says so.
    const error = await g.ack(['1-0']).catch((e: unknown) => e);
    expect(isApiError(error, 'QUEUE_NOT_FOUND')).toBe(true);
    expect(requests).toBe(1);
  });
});

describe('dead letters', () => {
  it('lists a page with a cursor, redrives by id and all, and purges', async () => {
    const q = service.client().queue(uniqueName('dlq'));
    await q.configure({ maxDeliveries: 1, visibilityTimeoutMs: 1 });
    const ids = await q.produce([{ body: 1 }, { body: 2 }, { body: 3 }]);
    const g = q.group('g');
    await g.create({ start: '0' });
    await g.consume({ consumer: 'w', count: 3 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await service.client().sweep()).deadLettered).toBe(3);
    const first = await q.dlq.list({ count: 2 });
    expect(first.deadLetters.map((d) => d.deadLetteredFrom)).toEqual(ids.slice(0, 2));
    expect(first.deadLetters[0]).toMatchObject({
      group: 'g',
      deliveries: 1,
      reason: 'maxDeliveries',
      body: 1,
    });
    const rest = await q.dlq.list({ cursor: first.cursor! });
    expect(rest.deadLetters.map((d) => d.deadLetteredFrom)).toEqual([ids[2]]);
    expect(await q.dlq.redrive([first.deadLetters[0]!.id])).toBe(1);
    expect((await q.stats()).deadLetters).toBe(2);
    expect(await q.dlq.redrive({ all: true })).toBe(2);
    // The sweep trimmed the three originals (acked by dead-lettering); the stream holds the copies.
    expect(await q.stats()).toMatchObject({ deadLetters: 0, length: 3 });
    // The three go back into the stream as new messages; dead-lettered again, they purge.
    const again = await g.consume({ consumer: 'w', count: 10 });
    expect(again.map((m) => m.body)).toEqual([1, 2, 3]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await service.client().sweep();
    expect(await q.dlq.purge()).toBe(3);
    expect((await q.dlq.list()).deadLetters).toEqual([]);
  });
});

describe('errors', () => {
  it('throws a QueueApiError with the code, status, message and details of a 400, not retryable', async () => {
    const q = service.client().queue(uniqueName('bad'));
    const error = await q.produce([]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueueApiError);
    expect(error).toMatchObject({
      name: 'QueueApiError',
      status: 400,
      code: 'INVALID_ARGUMENT',
      message: 'Request validation failed',
      transient: false,
      mayHaveBeenApplied: false,
      retryable: false,
      attempts: 1,
      method: 'POST',
      path: `/v1/queues/${q.name}/messages`,
    });
    expect((error as QueueApiError).details).toMatchObject({ issues: [{ path: ['messages'] }] });
  });

  it('reports a missing group with its hint, and a missing queue config as QUEUE_NOT_FOUND', async () => {
    const q = service.client().queue(uniqueName('missing'));
    const missingQueue = await q
      .group('nobody')
      .consume({ consumer: 'w' })
      .catch((e: unknown) => e);
    expect(missingQueue).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
    await q.configure();
    const error = await q
      .group('nobody')
      .consume({ consumer: 'w' })
      .catch((e: unknown) => e);
    expect(isApiError(error, 'GROUP_NOT_FOUND')).toBe(true);
    expect((error as QueueApiError).status).toBe(404);
    expect((error as QueueApiError).details).toMatchObject({ hint: expect.stringContaining('PUT') });
    const unknown = service.client().queue(uniqueName('never'));
    expect(isApiError(await unknown.config().catch((e: unknown) => e), 'QUEUE_NOT_FOUND')).toBe(true);
  });

  it('answers 401 for a wrong token and 403 for a missing scope', async () => {
    const stranger = createQueueClient({ url: service.url, token: 'not-a-token' });
    const unauthorized = await stranger.queues().catch((e: unknown) => e);
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED', retryable: false });
    const producer = service.client({ token: tokens.produce });
    const forbidden = await producer.queues().catch((e: unknown) => e);
    expect(forbidden).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      message: expect.stringContaining('consume'),
    });
  });

  it('aborts a long poll when its signal aborts, and the service gives the lease back', async () => {
    const q = service.client().queue(uniqueName('abort'));
    const g = q.group('g');
    await g.create({ start: '0' });
    const controller = new AbortController();
    const polled = g
      .consume({ consumer: 'w', waitMs: 10_000, signal: controller.signal })
      .catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    expect(await polled).toMatchObject({ code: 'ABORTED', retryable: false });
    expect(await g.pending()).toMatchObject({ pending: 0 });
  });

  it('refuses a call whose signal already aborted without sending it', async () => {
    const q = service.client().queue(uniqueName('pre-abort'));
    const error = await q.stats({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ABORTED', mayHaveBeenApplied: false, attempts: 1 });
  });
});

describe('the queue list', () => {
  it('follows every page of the queue list', async () => {
    const client = service.client();
    const prefix = uniqueName('many');
    const made: string[] = [];
    for (let i = 0; i < 1001; i++) {
      const name = `${prefix}-${String(i).padStart(4, '0')}`;
      made.push(name);
      await client.queue(name).configure();
    }
    const listed = (await client.queues()).map((stats) => stats.name);
    expect(listed.filter((name) => name.startsWith(prefix))).toEqual(made);
    expect(new Set(listed).size).toBe(listed.length);
    for (const name of made) await client.queue(name).delete();
  }, 120_000);
});

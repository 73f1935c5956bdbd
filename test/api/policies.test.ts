/** The delivery-policy routes end to end: pause and resume, ttlMs, nack without delayMs, the config fields. */
import { beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, tokens } from './support/harness.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.call('PUT', '/v1/queues/q', { body: {} });
  await h.call('PUT', '/v1/queues/q/groups/g', { body: { start: '0' } });
});

const consume = (body: Record<string, unknown> = {}) =>
  h.call('POST', '/v1/queues/q/groups/g/consume', { body: { consumer: 'c', ...body } });

describe('pause and resume', () => {
  it('holds a long poll for its waitMs while paused and delivers once resumed', async () => {
    await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 'm' }] } });
    const paused = await h.call('POST', '/v1/queues/q/pause');
    expect(paused.status).toBe(200);
    expect(paused.json).toEqual({ queue: 'q', paused: true });
    expect((await h.call('GET', '/v1/queues/q')).json.paused).toBe(true);
    const started = h.clock.now();
    const held = await consume({ waitMs: 1500 });
    expect(held.json).toEqual({ messages: [] });
    expect(h.clock.now() - started).toBe(1500);
    // Resumed during a long poll: the next poll delivers.
    const original = h.queue.consumeOrWatch.bind(h.queue);
    let polls = 0;
    h.queue.consumeOrWatch = async (...args) => {
      if (++polls === 2) await h.queue.resumeQueue('q');
      return original(...args);
    };
    const released = await consume({ waitMs: 5000 });
    expect(released.json.messages.map((m: { body: unknown }) => m.body)).toEqual(['m']);
    expect(polls).toBe(2);
    expect((await h.call('POST', '/v1/queues/q/resume')).json).toEqual({ queue: 'q', paused: false });
  });

  it('pauses one group and shows it in stats and metrics', async () => {
    const res = await h.call('POST', '/v1/queues/q/groups/g/pause');
    expect(res.json).toEqual({ queue: 'q', group: 'g', paused: true });
    const stats = (await h.call('GET', '/v1/queues/q')).json;
    expect(stats.paused).toBe(false);
    expect(stats.groups[0]).toMatchObject({ name: 'g', paused: true });
    const metrics = await h.call('GET', '/metrics');
    expect(metrics.text).toContain('queue_paused{queue="q"} 0');
    expect(metrics.text).toContain('queue_group_paused{queue="q",group="g"} 1');
    expect((await h.call('POST', '/v1/queues/q/groups/g/resume')).json.paused).toBe(false);
  });

  it('needs the admin scope and answers 404 and 400', async () => {
    for (const token of [tokens.produce, tokens.consume]) {
      expect((await h.call('POST', '/v1/queues/q/pause', { token })).status).toBe(403);
      expect((await h.call('POST', '/v1/queues/q/groups/g/resume', { token })).status).toBe(403);
    }
    expect((await h.call('POST', '/v1/queues/q/pause', { token: null })).status).toBe(401);
    const missing = await h.call('POST', '/v1/queues/nowhere/pause');
    expect([missing.status, missing.json.error.code]).toEqual([404, 'QUEUE_NOT_FOUND']);
    const noGroup = await h.call('POST', '/v1/queues/q/groups/nobody/pause');
    expect([noGroup.status, noGroup.json.error.code]).toEqual([404, 'GROUP_NOT_FOUND']);
    expect((await h.call('POST', '/v1/queues/bad%20name/pause')).status).toBe(400);
    expect((await h.call('GET', '/v1/queues/q')).json.paused).toBe(false);
  });
});

describe('retry backoff and expiry', () => {
  it('takes the config fields and refuses wrong ones naming the field, changing nothing', async () => {
    const set = await h.call('PUT', '/v1/queues/q', {
      body: { retryBackoff: 'exponential', retryDelayMs: 100, retryMaxDelayMs: 1000, messageTtlMs: 60_000 },
    });
    expect(set.json).toMatchObject({ retryBackoff: 'exponential', retryDelayMs: 100, retryMaxDelayMs: 1000 });
    for (const body of [
      { retryBackoff: 'linear' },
      { retryDelayMs: -1 },
      { retryMaxDelayMs: 31 * 86_400_000 },
      { messageTtlMs: 1.5 },
    ]) {
      const res = await h.call('PUT', '/v1/queues/q', { body: { ...body, maxDeliveries: 9 } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.json)).toContain(Object.keys(body)[0]);
    }
    expect(await h.queue.getConfig('q')).toMatchObject({ retryBackoff: 'exponential', maxDeliveries: 5 });
  });

  it('nacks without delayMs by the backoff, and dead-letters a message past its ttlMs', async () => {
    await h.call('PUT', '/v1/queues/q', { body: { retryBackoff: 'fixed', retryDelayMs: 2000 } });
    await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: 'kept' }, { body: 'brief', ttlMs: 1000 }] },
    });
    const [kept] = (await consume({ count: 1 })).json.messages;
    expect((await h.call('POST', '/v1/queues/q/groups/g/nack', { body: { ids: [kept.id] } })).json).toEqual({
      requeued: 1,
    });
    h.clock.advance(1999);
    expect((await consume()).json.messages).toEqual([]);
    h.clock.advance(1);
    expect((await consume()).json.messages.map((m: { body: unknown }) => m.body)).toEqual(['kept']);
    const dlq = (await h.call('GET', '/v1/queues/q/dlq')).json;
    expect(dlq.deadLetters.map((d: { body: unknown; reason: string }) => [d.body, d.reason])).toEqual([
      ['brief', 'expired'],
    ]);
    const bad = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: 1, ttlMs: 0 }] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('ttlMs');
  });
});

describe('message lookup', () => {
  it('answers a message with its state per group, 404 for an unknown one, 400 for a wrong id', async () => {
    const [id] = (await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: { n: 1 } }] } }))
      .json.ids;
    await consume();
    const res = await h.call('GET', `/v1/queues/q/messages/${id}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id,
      state: 'stream',
      body: { n: 1 },
      groups: [{ group: 'g', state: 'pending', consumer: 'c', deliveries: 1, pendingState: 'leased' }],
      deadLetters: [],
    });
    const missing = await h.call('GET', '/v1/queues/q/messages/1-0');
    expect([missing.status, missing.json.error.code]).toEqual([404, 'MESSAGE_NOT_FOUND']);
    const noQueue = await h.call('GET', '/v1/queues/nowhere/messages/1-0');
    expect([noQueue.status, noQueue.json.error.code]).toEqual([404, 'QUEUE_NOT_FOUND']);
    const bad = await h.call('GET', '/v1/queues/q/messages/not-an-id');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('id');
    expect((await h.call('GET', `/v1/queues/q/messages/${id}`, { token: tokens.consume })).status).toBe(403);
    const [later] = (
      await h.call('POST', '/v1/queues/q/messages', { body: { messages: [{ body: 2, delayMs: 1000 }] } })
    ).json.ids;
    expect((await h.call('GET', `/v1/queues/q/messages/${later}`)).json).toMatchObject({
      state: 'delayed',
      deliverAt: h.clock.now() + 1000,
    });
  });
});

describe('limits', () => {
  it('takes a 30-day delay, a 12 h lease and a retention of any length, and refuses past them', async () => {
    const ok = await h.call('PUT', '/v1/queues/q', {
      body: { visibilityTimeoutMs: 12 * 3_600_000, retentionMs: Number.MAX_SAFE_INTEGER },
    });
    expect(ok.json).toMatchObject({
      visibilityTimeoutMs: 12 * 3_600_000,
      retentionMs: Number.MAX_SAFE_INTEGER,
    });
    expect(
      (await h.call('PUT', '/v1/queues/q', { body: { visibilityTimeoutMs: 12 * 3_600_000 + 1 } })).status,
    ).toBe(400);
    expect(
      (await h.call('PUT', '/v1/queues/q', { body: { retentionMs: Number.MAX_SAFE_INTEGER + 1 } })).status,
    ).toBe(400);
    const delayed = await h.call('POST', '/v1/queues/q/messages', {
      body: { messages: [{ body: 1, delayMs: 30 * 86_400_000 }] },
    });
    expect(delayed.status).toBe(201);
    expect((await h.call('GET', `/v1/queues/q/messages/${delayed.json.ids[0]}`)).json.deliverAt).toBe(
      h.clock.now() + 30 * 86_400_000,
    );
  });
});

describe('schedules', () => {
  it('creates, lists and deletes a schedule, which the sweep fires; 400 naming cron or timezone', async () => {
    h.clock.set(Date.UTC(2026, 0, 5, 12, 1));
    const body = {
      cron: '*/5 * * * *',
      timezone: 'Europe/Paris',
      message: { body: { job: 1 }, ttlMs: 60_000 },
    };
    const created = await h.call('PUT', '/v1/queues/q/schedules/tick', { body });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: 'tick',
      timezone: 'Europe/Paris',
      nextRunAt: Date.UTC(2026, 0, 5, 12, 5),
    });
    expect((await h.call('PUT', '/v1/queues/q/schedules/tick', { body })).status).toBe(200);
    expect(
      (await h.call('GET', '/v1/queues/q/schedules')).json.schedules.map((s: { name: string }) => s.name),
    ).toEqual(['tick']);
    h.clock.set(Date.UTC(2026, 0, 5, 12, 5));
    expect((await h.call('POST', '/v1/sweep')).json).toMatchObject({ scheduled: 1, catchUps: 0 });
    expect((await consume()).json.messages.map((m: { body: unknown }) => m.body)).toEqual([{ job: 1 }]);
    for (const [bad, field] of [
      [{ ...body, cron: '* * *' }, 'cron'],
      [{ ...body, timezone: 'Nowhere/Land' }, 'timezone'],
    ] as const) {
      const res = await h.call('PUT', '/v1/queues/q/schedules/bad', { body: bad });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toContain(field);
      expect(Object.keys(res.json.error.details)).toEqual([field]);
    }
    expect((await h.call('PUT', '/v1/queues/q/schedules/tick', { body, token: tokens.consume })).status).toBe(
      403,
    );
    // A queue not yet configured is created and registered, as produce does.
    expect((await h.call('PUT', '/v1/queues/nowhere/schedules/tick', { body })).status).toBe(201);
    expect((await h.call('GET', '/v1/queues')).json.queues.map((q: { name: string }) => q.name)).toContain(
      'nowhere',
    );
    expect((await h.call('DELETE', '/v1/queues/q/schedules/tick')).json).toEqual({ deleted: true });
    const gone = await h.call('DELETE', '/v1/queues/q/schedules/tick');
    expect([gone.status, gone.json.error.code]).toEqual([404, 'SCHEDULE_NOT_FOUND']);
  });
});

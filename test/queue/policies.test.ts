/** Conformance: retry backoff and message expiry on every backend, with the injected clock. */
import { expect, it } from 'vitest';
import { onEveryBackend } from './support/suite.ts';

const VT = 5000;

onEveryBackend('delivery policies', (make) => {
  it('waits the exponential backoff before each redelivery after a nack without delayMs, capped', async () => {
    const { queue, clock } = make();
    await queue.configure('q', {
      retryBackoff: 'exponential',
      retryDelayMs: 1000,
      retryMaxDelayMs: 10_000,
      maxDeliveries: 10,
    });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 'job' }]);
    const expected = [1000, 2000, 4000, 8000, 10_000, 10_000];
    let got = await queue.consume('q', 'g', 'c', 1);
    for (let n = 1; n <= expected.length; n++) {
      expect(got.map((m) => [m.id, m.deliveries])).toEqual([[id, n]]);
      expect(await queue.nack('q', 'g', [id as string])).toBe(1);
      const delay = expected[n - 1] as number;
      const [entry] = await queue.pendingRange('q', 'g', { start: '-', end: '+', count: 10 });
      expect(entry).toMatchObject({ id, state: 'retrying', eligibleAt: clock.now() + delay });
      clock.advance(delay - 1);
      expect(await queue.consume('q', 'g', 'c', 1)).toEqual([]);
      clock.advance(1);
      got = await queue.consume('q', 'g', 'c', 1);
    }
    expect(got.map((m) => m.deliveries)).toEqual([7]);
  });

  it('keeps nack delays as named, and a nack without delayMs immediate with backoff none', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { retryBackoff: 'fixed', retryDelayMs: 3000 });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1 }]);
    await queue.consume('q', 'g', 'c', 1);
    await queue.nack('q', 'g', [id as string], 500);
    clock.advance(500);
    expect((await queue.consume('q', 'g', 'c', 1)).map((m) => m.deliveries)).toEqual([2]);
    await queue.configure('q', { retryBackoff: 'none' });
    await queue.nack('q', 'g', [id as string]);
    expect((await queue.consume('q', 'g', 'c', 1)).map((m) => m.deliveries)).toEqual([3]);
  });

  it('redelivers an expired lease only after the backoff counted from its expiry, in consume, reclaim and pending', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, retryBackoff: 'fixed', retryDelayMs: 3000 });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1 }]);
    const start = clock.now();
    await queue.consume('q', 'g', 'a', 1);
    clock.advance(VT);
    const [entry] = await queue.pendingRange('q', 'g', { start: '-', end: '+', count: 10 });
    expect(entry).toMatchObject({ id, consumer: 'a', state: 'retrying', eligibleAt: start + VT + 3000 });
    expect((await queue.reclaim('q', 'g', 'b', { minIdleMs: 0 })).messages).toEqual([]);
    expect(await queue.consume('q', 'g', 'b', 1)).toEqual([]);
    expect(await queue.extend('q', 'g', 'a', [id as string])).toEqual({ extended: [], lost: [id] });
    clock.advance(2999);
    expect(await queue.consume('q', 'g', 'b', 1)).toEqual([]);
    expect((await queue.reclaim('q', 'g', 'b', { minIdleMs: 0 })).messages).toEqual([]);
    clock.advance(1);
    const taken = await queue.reclaim('q', 'g', 'b', { minIdleMs: 0 });
    expect(taken.messages.map((m) => [m.id, m.deliveries])).toEqual([[id, 2]]);
    // Exponential from the expiry: the second expiry waits 2x.
    await queue.configure('q', { retryBackoff: 'exponential', retryDelayMs: 1000, retryMaxDelayMs: 60_000 });
    clock.advance(VT + 1999);
    expect(await queue.consume('q', 'g', 'c', 1)).toEqual([]);
    clock.advance(1);
    expect((await queue.consume('q', 'g', 'c', 1)).map((m) => [m.id, m.deliveries])).toEqual([[id, 3]]);
  });

  it('dead-letters a message past its ttlMs with reason expired instead of delivering it', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 'short', ttlMs: 1000 }]);
    const [kept] = await queue.produce('q', [{ body: 'long', ttlMs: 2000 }]);
    clock.advance(1000);
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.id)).toEqual([kept]);
    const { deadLetters } = await queue.listDeadLetters('q', {});
    expect(deadLetters.map((d) => [d.deadLetteredFrom, d.reason, d.body, d.deliveries])).toEqual([
      [id, 'expired', 'short', 0],
    ]);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(1);
  });

  it('never redelivers a message after its ttl, and a delayed one that expires before it is due', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const [id] = await queue.produce('q', [{ body: 1, ttlMs: VT + 10 }]);
    await queue.produce('q', [{ body: 2, ttlMs: 1000, delayMs: 2000 }]);
    expect((await queue.consume('q', 'g', 'a', 5)).map((m) => m.id)).toEqual([id]);
    await queue.nack('q', 'g', [id as string], VT + 10);
    clock.advance(VT + 10);
    expect(await queue.consume('q', 'g', 'b', 5)).toEqual([]);
    const { deadLetters } = await queue.listDeadLetters('q', {});
    expect(deadLetters.map((d) => [d.body, d.reason, d.deliveries]).sort()).toEqual([
      [1, 'expired', 1],
      [2, 'expired', 0],
    ]);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(0);
  });

  it('applies messageTtlMs to messages without their own ttl, also ones written before expiry existed', async () => {
    const { queue, clock, raw, keys } = make();
    await queue.createGroup('q', 'g', '0');
    // An entry as the previous release wrote it: body and enqueuedAt, no expiresAt.
    const stream = keys.queue('q').stream;
    await raw(
      "return redis.call('XADD', KEYS[1], '*', 'body', '\"old\"', 'enqueuedAt', ARGV[1])",
      [stream],
      [String(clock.now())],
    );
    // Without messageTtlMs it never expires.
    clock.advance(400 * 86_400_000);
    const [old] = await queue.consume('q', 'g', 'c', 5);
    expect(old?.body).toBe('old');
    await queue.nack('q', 'g', [old?.id as string]);
    await queue.configure('q', { messageTtlMs: 1000 });
    // Now the old one (enqueued 400 days ago) is past the queue's TTL: dead-lettered, not redelivered.
    const [young] = await queue.produce('q', [{ body: 'young' }]);
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.id)).toEqual([young]);
    await queue.nack('q', 'g', [young as string]);
    await queue.produce('q', [{ body: 'own', ttlMs: 5000 }]);
    clock.advance(1000);
    // young is past messageTtlMs; own's ttlMs overrides the queue's.
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.body)).toEqual(['own']);
    const reasons = (await queue.listDeadLetters('q', {})).deadLetters.map((d) => [d.body, d.reason]);
    expect(reasons.sort()).toEqual([
      ['old', 'expired'],
      ['young', 'expired'],
    ]);
  });

  it('lets the sweep dead-letter expired messages, pending or not delivered yet', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [
      { body: 1, ttlMs: 1000 },
      { body: 2, ttlMs: 1000 },
      { body: 3, ttlMs: 1000 },
      { body: 4, ttlMs: 60_000 },
    ]);
    expect(await queue.consume('q', 'g', 'c', 1)).toHaveLength(1);
    clock.advance(VT);
    const report = await queue.sweep();
    expect(report.deadLettered).toBe(3);
    const { deadLetters } = await queue.listDeadLetters('q', {});
    expect(deadLetters.map((d) => [d.body, d.reason])).toEqual([
      [1, 'expired'],
      [2, 'expired'],
      [3, 'expired'],
    ]);
    // The sweep's own reader leaves no consumer behind, and the fresh message is still there.
    expect((await queue.pendingSummary('q', 'g')).consumers).toEqual([]);
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.body)).toEqual([4]);
    // A redriven expired message is delivered again (its own ttl stays behind).
    expect(await queue.redrive('q', { all: true })).toBe(3);
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.body)).toEqual([1, 2, 3]);
  });

  it('delivers nothing while the queue is paused, while produce, ack, nack, extend and the sweep go on', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    const [a, b] = await queue.produce('q', [{ body: 'a' }, { body: 'b' }]);
    expect((await queue.consume('q', 'g', 'c', 1)).map((m) => m.id)).toEqual([a]);
    await queue.pauseQueue('q');
    expect((await queue.stats('q')).paused).toBe(true);
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    expect(await queue.consume('q', 'h', 'c', 5)).toEqual([]);
    const [c] = await queue.produce('q', [{ body: 'c' }]);
    expect(await queue.extend('q', 'g', 'c', [a as string])).toEqual({ extended: [a], lost: [] });
    expect(await queue.nack('q', 'g', [a as string], 0)).toBe(1);
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    // The sweep still dead-letters: a reached its one delivery.
    clock.advance(VT);
    expect((await queue.sweep()).deadLettered).toBe(1);
    await queue.resumeQueue('q');
    expect((await queue.stats('q')).paused).toBe(false);
    const ids = async (group: string) => (await queue.consume('q', group, 'c', 5)).map((m) => m.id).sort();
    expect(await ids('g')).toEqual([b, c].sort());
    expect(await ids('h')).toEqual([a, b, c].sort());
    expect(await queue.ack('q', 'g', [b as string, c as string])).toBe(2);
  });

  it('pauses one group while the others go on, and answers 404s for what does not exist', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    await queue.produce('q', [{ body: 1 }]);
    await queue.pauseGroup('q', 'g');
    const stats = await queue.stats('q');
    expect(stats.paused).toBe(false);
    expect(stats.groups.map((g) => [g.name, g.paused])).toEqual([
      ['g', true],
      ['h', false],
    ]);
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    expect(await queue.consume('q', 'h', 'c', 5)).toHaveLength(1);
    await queue.resumeGroup('q', 'g');
    expect(await queue.consume('q', 'g', 'c', 5)).toHaveLength(1);
    await expect(queue.pauseGroup('q', 'nobody')).rejects.toThrow(
      'Group "nobody" of queue "q" does not exist',
    );
    await expect(queue.pauseGroup('missing', 'g')).rejects.toThrow('Queue "missing" does not exist');
    await expect(queue.pauseQueue('missing')).rejects.toThrow('Queue "missing" does not exist');
    await expect(queue.pauseQueue('bad name')).rejects.toThrow('queue name must be');
    // A deleted group's pause goes with it.
    await queue.pauseGroup('q', 'h');
    expect(await queue.deleteGroup('q', 'h')).toBe(true);
    await queue.createGroup('q', 'h', '0');
    expect(await queue.consume('q', 'h', 'c', 5)).toHaveLength(1);
  });

  it('keeps a queue paused across a partition growth', async () => {
    const { queue } = make();
    await queue.configure('q', { partitions: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.pauseQueue('q');
    await queue.configure('q', { partitions: 4 });
    for (let i = 0; i < 4; i++) await queue.produce('q', [{ body: i }]);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    await queue.resumeQueue('q');
    const got: unknown[] = [];
    for (let i = 0; i < 4 && got.length < 4; i++) got.push(...(await queue.consume('q', 'g', 'c', 10)));
    expect(got).toHaveLength(4);
  });

  it('looks a message up by id in every state, in one round trip', async () => {
    const { queue, clock, calls, raw, at } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    const [a] = await queue.produce('q', [{ body: { n: 1 }, attributes: { k: 'v' } }]);
    const [later] = await queue.produce('q', [{ body: 'later', delayMs: 60_000 }]);
    const enqueuedAt = clock.now();
    // Once to load the script on the node that holds the id's partition (a cluster has several).
    await queue.getMessage('q', a as string);
    const before = calls.length;
    const waiting = await queue.getMessage('q', a as string);
    expect(calls.slice(before).map((call) => call.command)).toEqual(['evalsha']);
    expect(waiting).toEqual({
      id: a,
      state: 'stream',
      body: { n: 1 },
      attributes: { k: 'v' },
      enqueuedAt,
      groups: [
        { group: 'g', state: 'waiting' },
        { group: 'h', state: 'waiting' },
      ],
      deadLetters: [],
    });
    expect(await queue.getMessage('q', later as string)).toMatchObject({
      id: later,
      state: 'delayed',
      body: 'later',
      deliverAt: enqueuedAt + 60_000,
      groups: [],
    });
    await queue.consume('q', 'g', 'c', 1);
    await queue.consume('q', 'h', 'd', 1);
    expect((await queue.getMessage('q', a as string))?.groups).toEqual([
      {
        group: 'g',
        state: 'pending',
        consumer: 'c',
        deliveries: 1,
        pendingState: 'leased',
        eligibleAt: enqueuedAt + VT,
      },
      {
        group: 'h',
        state: 'pending',
        consumer: 'd',
        deliveries: 1,
        pendingState: 'leased',
        eligibleAt: enqueuedAt + VT,
      },
    ]);
    await queue.ack('q', 'g', [a as string]);
    await queue.nack('q', 'h', [a as string], 1000);
    expect((await queue.getMessage('q', a as string))?.groups).toEqual([
      { group: 'g', state: 'acked' },
      {
        group: 'h',
        state: 'pending',
        consumer: 'd',
        deliveries: 1,
        pendingState: 'retrying',
        eligibleAt: enqueuedAt + 1000,
      },
    ]);
    // h's one delivery is spent: its redelivery is dead-lettered instead.
    clock.advance(1000);
    expect(await queue.consume('q', 'h', 'd', 1)).toEqual([]);
    const dead = await queue.getMessage('q', a as string);
    const letter = dead?.deadLetters[0];
    expect(dead?.groups).toEqual([
      { group: 'g', state: 'acked' },
      { group: 'h', state: 'dead-lettered', deadLetterId: letter?.id },
    ]);
    expect(letter).toMatchObject({
      deadLetteredFrom: a,
      group: 'h',
      reason: 'maxDeliveries',
      body: { n: 1 },
    });
    // The dead letter's own id answers it too.
    expect(await queue.getMessage('q', letter?.id as string)).toEqual({
      id: letter?.id,
      state: 'dead-lettered',
      body: { n: 1 },
      attributes: { k: 'v' },
      enqueuedAt,
      groups: [],
      deadLetters: [letter],
    });
    // Gone from the stream (deleted or trimmed): its dead letter is what is left.
    const { keys, raw: rawId } = at('q', a as string);
    await raw("return redis.call('XDEL', KEYS[1], ARGV[1])", [keys.stream], [rawId]);
    expect(await queue.getMessage('q', a as string)).toMatchObject({
      id: a,
      state: 'dead-lettered',
      body: { n: 1 },
      groups: [{ group: 'h', state: 'dead-lettered', deadLetterId: letter?.id }],
      deadLetters: [letter],
    });
    // A dead letter written before the index existed is found by its own id only.
    await raw("return redis.call('DEL', KEYS[1])", [keys.dlqIndex]);
    expect(await queue.getMessage('q', a as string)).toBeNull();
    expect((await queue.getMessage('q', letter?.id as string))?.state).toBe('dead-lettered');
    // Redriven: the dead letter and its index entry go.
    await queue.produce('q', [{ body: 'x' }]);
    expect(await queue.getMessage('q', '1-0')).toBeNull();
    await expect(queue.getMessage('missing', '1-0')).rejects.toThrow('Queue "missing" does not exist');
    await expect(queue.getMessage('q', 'nope')).rejects.toThrow('id must be');
  });

  it('forgets the index entry of a redriven or purged dead letter', async () => {
    const { queue, clock, raw, at } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT, maxDeliveries: 1 });
    await queue.createGroup('q', 'g', '0');
    const [a] = await queue.produce('q', [{ body: 1 }]);
    await queue.consume('q', 'g', 'c', 1);
    clock.advance(VT);
    expect((await queue.sweep()).deadLettered).toBe(1);
    const { keys } = at('q', a as string);
    expect(await raw("return redis.call('HLEN', KEYS[1])", [keys.dlqIndex])).toBe(1);
    expect(await queue.redrive('q', { all: true })).toBe(1);
    expect(await raw("return redis.call('HLEN', KEYS[1])", [keys.dlqIndex])).toBe(0);
    // The sweep trimmed the acked entry: with its dead letter gone, nothing is left of it.
    expect(await queue.getMessage('q', a as string)).toBeNull();
    const [again] = await queue.consume('q', 'g', 'c', 1);
    clock.advance(VT);
    await queue.sweep();
    expect((await queue.getMessage('q', again?.id as string))?.groups[0]?.state).toBe('dead-lettered');
    expect(await queue.purgeDeadLetters('q')).toBe(1);
    expect(await raw("return redis.call('EXISTS', KEYS[1])", [keys.dlqIndex])).toBe(0);
  });
});

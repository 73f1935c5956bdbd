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
    expect(await queue.extend('q', 'g', 'a', [id as string])).toEqual({
      extended: [],
      lost: [id],
      cancelled: [],
    });
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
});

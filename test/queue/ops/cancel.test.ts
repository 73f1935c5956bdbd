/**
 * Conformance, cancelling a message (lib/queue/ops/cancel.ts): in each state (waiting, delayed,
 * grouped, in flight), in flight with a heartbeat, after a lease expiry, racing an ack; idempotent;
 * unknown ids. On every backend and partition count, on the injected clock.
 */
import { expect, it } from 'vitest';
import { onEveryBackend } from '../support/suite.ts';

const VT = 5000;

onEveryBackend('cancel', (make) => {
  it('never delivers a waiting message once it is cancelled, and answers a second cancel as already done', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    const [a, b] = await queue.produce('q', [{ body: 'a' }, { body: 'b' }]);
    expect(await queue.cancelMessage('q', a as string)).toEqual({
      id: a,
      alreadyCancelled: false,
      inFlight: 0,
    });
    expect(await queue.cancelMessage('q', a as string)).toEqual({
      id: a,
      alreadyCancelled: true,
      inFlight: 0,
    });
    expect((await queue.consume('q', 'g', 'c', 10)).map((m) => m.body)).toEqual(['b']);
    await queue.ack('q', 'g', [b as string]);
    clock.advance(VT * 3);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    const lookup = await queue.getMessage('q', a as string);
    expect(lookup?.state).toBe('cancelled');
    expect(lookup?.body).toBe('a');
    expect(lookup?.cancelledAt).toBe(clock.now() - VT * 3);
  });

  it('never delivers a delayed message once its token is cancelled', async () => {
    const { queue, clock } = make();
    await queue.createGroup('q', 'g', '0');
    const [later] = await queue.produce('q', [{ body: 'later', delayMs: 10_000 }]);
    expect((await queue.stats('q')).delayed).toBe(1);
    expect(await queue.cancelMessage('q', later as string)).toEqual({
      id: later,
      alreadyCancelled: false,
      inFlight: 0,
    });
    expect((await queue.stats('q')).delayed).toBe(0);
    clock.advance(10_000);
    expect(await queue.consume('q', 'g', 'c', 10)).toEqual([]);
    expect((await queue.getMessage('q', later as string))?.state).toBe('cancelled');
    expect(await queue.cancelMessage('q', later as string)).toEqual({
      id: later,
      alreadyCancelled: true,
      inFlight: 0,
    });
  });

  it('answers null for an id the queue never had, and QUEUE_NOT_FOUND for a missing queue', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    await queue.produce('q', [{ body: 1 }]);
    expect(await queue.cancelMessage('q', '1-1')).toBeNull();
    expect(await queue.cancelMessage('q', 'delayed-999')).toBeNull();
    await expect(queue.cancelMessage('nope', '1-1')).rejects.toMatchObject({ code: 'QUEUE_NOT_FOUND' });
    await expect(queue.cancelMessage('q', 'not an id')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('tells the holder on its next heartbeat, accepts its ack, and never delivers it again', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const [a, b] = await queue.produce('q', [{ body: 'a' }, { body: 'b' }]);
    expect((await queue.consume('q', 'g', 'x', 2)).map((m) => m.id)).toEqual([a, b]);
    expect(await queue.cancelMessage('q', a as string)).toEqual({
      id: a,
      alreadyCancelled: false,
      inFlight: 1,
    });
    clock.advance(VT - 10);
    expect(await queue.extend('q', 'g', 'x', [a as string, b as string])).toEqual({
      extended: [b],
      lost: [],
      cancelled: [a],
    });
    // Another consumer's heartbeat does not hold it: lost, as any message it does not hold.
    expect(await queue.extend('q', 'g', 'y', [a as string])).toEqual({
      extended: [],
      lost: [a],
      cancelled: [],
    });
    expect(await queue.ack('q', 'g', [a as string])).toBe(1);
    expect(await queue.ack('q', 'g', [a as string])).toBe(0);
    clock.advance(VT * 4);
    expect((await queue.consume('q', 'g', 'z', 5)).map((m) => m.id)).toEqual([b]);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(1);
    expect((await queue.getMessage('q', a as string))?.state).toBe('cancelled');
  });

  it('drops a cancelled message at its lease expiry instead of delivering it again', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    await queue.createGroup('q', 'h', '0');
    const [a] = await queue.produce('q', [{ body: 'a' }]);
    expect((await queue.consume('q', 'g', 'x', 1)).map((m) => m.id)).toEqual([a]);
    expect(await queue.cancelMessage('q', a as string)).toEqual({
      id: a,
      alreadyCancelled: false,
      inFlight: 1,
    });
    // Group h had not read it: it never does.
    expect(await queue.consume('q', 'h', 'y', 5)).toEqual([]);
    clock.advance(VT + 1);
    expect(await queue.consume('q', 'g', 'z', 5)).toEqual([]);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(0);
    // After the drop its holder's heartbeat says it lost it; its ack counts nothing.
    expect(await queue.extend('q', 'g', 'x', [a as string])).toEqual({
      extended: [],
      lost: [a],
      cancelled: [],
    });
    expect(await queue.ack('q', 'g', [a as string])).toBe(0);
    expect((await queue.getMessage('q', a as string))?.state).toBe('cancelled');
  });

  it('settles a cancel racing an ack either way: acked once, never delivered again', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    const [a, b] = await queue.produce('q', [{ body: 'a' }, { body: 'b' }]);
    await queue.consume('q', 'g', 'x', 2);
    const [cancelled, acked] = await Promise.all([
      queue.cancelMessage('q', a as string),
      queue.ack('q', 'g', [a as string]),
    ]);
    expect(acked).toBe(1);
    expect(cancelled?.id).toBe(a);
    // The ack before the cancel: nothing in flight; after it: one.
    expect([0, 1]).toContain(cancelled?.inFlight);
    // A cancel after both is a no-op.
    expect(await queue.cancelMessage('q', a as string)).toEqual({
      id: a,
      alreadyCancelled: true,
      inFlight: 0,
    });
    await queue.ack('q', 'g', [b as string]);
    clock.advance(VT * 4);
    expect(await queue.consume('q', 'g', 'y', 5)).toEqual([]);
    expect((await queue.pendingSummary('q', 'g')).pending).toBe(0);
  });

  it('takes a cancelled grouped message out of its key line, so the key goes on', async () => {
    const { queue, clock } = make();
    await queue.configure('q', { visibilityTimeoutMs: VT });
    await queue.createGroup('q', 'g', '0');
    // k1's first is produced alone (reserved in its line), the second queues behind it.
    const [first] = await queue.produce('q', [{ body: 'k1-1', groupKey: 'k1' }]);
    const [second] = await queue.produce('q', [{ body: 'k1-2', groupKey: 'k1' }]);
    const [third] = await queue.produce('q', [{ body: 'k1-3', groupKey: 'k1' }]);
    expect(await queue.cancelMessage('q', first as string)).toMatchObject({ inFlight: 0 });
    expect(await queue.cancelMessage('q', second as string)).toMatchObject({ inFlight: 0 });
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.id)).toEqual([third]);
    await queue.ack('q', 'g', [third as string]);
    // A grouped message cancelled in flight frees its key at the lease expiry.
    const [fourth] = await queue.produce('q', [{ body: 'k1-4', groupKey: 'k1' }]);
    const [fifth] = await queue.produce('q', [{ body: 'k1-5', groupKey: 'k1' }]);
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.id)).toEqual([fourth]);
    expect(await queue.cancelMessage('q', fourth as string)).toMatchObject({ inFlight: 1 });
    expect(await queue.consume('q', 'g', 'c', 5)).toEqual([]);
    clock.advance(VT + 1);
    expect((await queue.consume('q', 'g', 'c', 5)).map((m) => m.id)).toEqual([fifth]);
  });

  it('forgets what it cancelled when the queue is deleted', async () => {
    const { queue } = make();
    await queue.createGroup('q', 'g', '0');
    const [a] = await queue.produce('q', [{ body: 'a' }]);
    await queue.cancelMessage('q', a as string);
    expect((await queue.getMessage('q', a as string))?.state).toBe('cancelled');
    expect(await queue.deleteQueue('q')).toBe(true);
    // On the injected clock the new stream may reuse the old id: then it is the new message.
    await queue.produce('q', [{ body: 'again' }]);
    const lookup = await queue.getMessage('q', a as string);
    expect(lookup === null || (lookup.state === 'stream' && lookup.body === 'again')).toBe(true);
    expect((await queue.cancelMessage('q', a as string))?.alreadyCancelled ?? false).toBe(false);
  });
});

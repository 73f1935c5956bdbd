/**
 * Conformance, message move tasks (lib/queue/ops/move-tasks.ts): startMove, listMoves,
 * cancelMove, the sweep's steps within a task's rate, and a step cut off between its produce and
 * its ack, repeated without a duplicate.
 */
import { expect, it } from 'vitest';
import { isQueueError, QueueErrorCode } from '../../../lib/queue/errors.ts';
import { scripts } from '../../../lib/queue/scripts.generated.ts';
import type { QueueService } from '../../../lib/queue/types.ts';
import { type RedisClient, RedisUnavailableError } from '../../../lib/redis/client.ts';
import { onEveryBackend } from '../support/suite.ts';

const VT = 30_000;

/** The client, except that calls of the named script fail as if the process died before them. */
function failing(inner: RedisClient, script: keyof typeof scripts): RedisClient {
  const { sha, source } = scripts[script];
  return {
    evalsha: (s, keys, args) =>
      s === sha ? Promise.reject(new RedisUnavailableError('crashed')) : inner.evalsha(s, keys, args),
    eval: (src, keys, args) =>
      src === source ? Promise.reject(new RedisUnavailableError('crashed')) : inner.eval(src, keys, args),
  };
}

/** Every message group `g` of `queue` can take now, acked. */
async function drain(queue: QueueService, name: string, group = 'g') {
  const out = [];
  for (;;) {
    const batch = await queue.consume(name, group, 'reader', 100);
    if (batch.length === 0) return out;
    await queue.ack(
      name,
      group,
      batch.map((m) => m.id),
    );
    out.push(...batch);
  }
}

onEveryBackend('message move tasks', (make) => {
  /** `src` dead-letters `bodies` into `dlq`, which is read through group `m`. */
  async function deadLettered(queue: QueueService, clock: { advance(ms: number): void }, bodies: number[]) {
    await queue.configure('dlq', {});
    await queue.createGroup('dlq', 'm', '0');
    await queue.configure('src', { maxDeliveries: 1, visibilityTimeoutMs: VT, deadLetterQueue: 'dlq' });
    await queue.createGroup('src', 'g', '0');
    const ids = await queue.produce(
      'src',
      bodies.map((body) => ({ body, attributes: { n: String(body) } })),
    );
    expect(await queue.consume('src', 'g', 'c', 100)).toHaveLength(bodies.length);
    clock.advance(VT);
    expect(await queue.consume('src', 'g', 'c', 100)).toEqual([]);
    expect((await queue.stats('dlq')).length).toBe(bodies.length);
    return ids;
  }

  it('moves a dead-letter queue back to the queues its messages came from, once, and records it', async () => {
    const { queue, clock } = make();
    const ids = await deadLettered(queue, clock, [1, 2, 3]);
    const task = await queue.startMove('dlq', { group: 'm' });
    expect(task).toMatchObject({
      status: 'COMPLETED',
      source: 'dlq',
      group: 'm',
      moved: 3,
      toMove: 3,
      startedAt: clock.now(),
    });
    expect(task.destination).toBeUndefined();
    expect(task.handle.startsWith('dlq:')).toBe(true);
    const back = await drain(queue, 'src');
    expect(back.map((m) => m.body).sort()).toEqual([1, 2, 3]);
    // Their attributes, and the id they had in src (dlq:id); not where they were dead-lettered from.
    expect(back.map((m) => m.attributes).sort((a, b) => Number(a.n) - Number(b.n))).toEqual(
      ids.map((id, i) => ({ n: String(i + 1), 'dlq:id': id })),
    );
    expect(back.every((m) => m.deliveries === 1)).toBe(true);
    expect(await drain(queue, 'dlq', 'm')).toEqual([]);
    expect(await queue.listMoves('dlq')).toEqual([task]);
  });

  it('moves into a destination within maxPerSecond, a step per sweep, one task at a time', async () => {
    const { queue, clock } = make();
    await queue.configure('dlq', {});
    await queue.createGroup('dlq', 'm', '0');
    await queue.configure('other', {});
    await queue.createGroup('other', 'g', '0');
    await queue.produce(
      'dlq',
      [1, 2, 3, 4, 5].map((body) => ({ body })),
    );
    // A scheduled sweep finds the queues idle and would skip them for 5 minutes.
    await queue.sweep({ revisitMs: 300_000 });
    const started = await queue.startMove('dlq', { group: 'm', destination: 'other', maxPerSecond: 2 });
    expect(started).toMatchObject({
      status: 'RUNNING',
      moved: 2,
      toMove: 5,
      maxPerSecond: 2,
      destination: 'other',
    });
    const busy = await queue.startMove('dlq', { group: 'm' }).catch((e: unknown) => e);
    expect(isQueueError(busy, QueueErrorCode.conflict)).toBe(true);
    // Within the same second the rate allows nothing more.
    await queue.sweep();
    expect((await queue.listMoves('dlq'))[0]?.moved).toBe(2);
    clock.advance(1000);
    await queue.sweep({ revisitMs: 300_000 });
    expect((await queue.listMoves('dlq'))[0]).toMatchObject({ status: 'RUNNING', moved: 4 });
    clock.advance(1000);
    await queue.sweep({ revisitMs: 300_000 });
    expect(await queue.listMoves('dlq', 1)).toMatchObject([{ status: 'COMPLETED', moved: 5 }]);
    expect((await drain(queue, 'other')).map((m) => m.body).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await drain(queue, 'dlq', 'm')).toEqual([]);
  });

  it('cancels a running task, keeps what it moved, and lets a new one start', async () => {
    const { queue, clock } = make();
    await deadLettered(queue, clock, [1, 2, 3]);
    const { handle } = await queue.startMove('dlq', { group: 'm', maxPerSecond: 1 });
    const cancelled = await queue.cancelMove(handle);
    expect(cancelled).toMatchObject({ handle, status: 'CANCELLED', moved: 1 });
    const again = await queue.cancelMove(handle).catch((e: unknown) => e);
    expect(isQueueError(again, QueueErrorCode.moveTaskNotFound)).toBe(true);
    for (const other of ['nope', 'dlq:0', 'missing-queue:000000000000001:00', `${handle}x`]) {
      const unknown = await queue.cancelMove(other).catch((e: unknown) => e);
      expect(isQueueError(unknown, QueueErrorCode.moveTaskNotFound)).toBe(true);
    }
    clock.advance(5000);
    await queue.sweep();
    expect((await queue.stats('dlq')).groups[0]?.lag).toBe(2);
    clock.advance(1);
    const next = await queue.startMove('dlq', { group: 'm' });
    expect(next).toMatchObject({ status: 'COMPLETED', moved: 2, toMove: 2 });
    expect((await queue.listMoves('dlq')).map((t) => [t.status, t.moved])).toEqual([
      ['COMPLETED', 2],
      ['CANCELLED', 1],
    ]);
    expect((await drain(queue, 'src')).map((m) => m.body).sort()).toEqual([1, 2, 3]);
  });

  it('fails a task whose message has no source queue, or whose destination does not exist, leaving the message', async () => {
    const { queue, clock } = make();
    await queue.configure('dlq', {});
    await queue.createGroup('dlq', 'm', '0');
    await queue.produce('dlq', [{ body: 'orphan' }]);
    const orphan = await queue.startMove('dlq', { group: 'm' });
    expect(orphan.status).toBe('FAILED');
    expect(orphan.moved).toBe(0);
    expect(orphan.failureReason).toMatch(/has no source queue/);
    clock.advance(1);
    const nowhere = await queue.startMove('dlq', { group: 'm', destination: 'gone' });
    expect(nowhere).toMatchObject({
      status: 'FAILED',
      failureReason: 'The destination queue gone does not exist.',
    });
    expect((await drain(queue, 'dlq', 'm')).map((m) => m.body)).toEqual(['orphan']);
  });

  it('refuses a missing queue or group, a bad rate, and keeps the ten newest tasks', async () => {
    const { queue, clock } = make();
    const missing = await queue.startMove('none', { group: 'm' }).catch((e: unknown) => e);
    expect(isQueueError(missing, QueueErrorCode.queueNotFound)).toBe(true);
    await queue.configure('dlq', {});
    const noGroup = await queue.startMove('dlq', { group: 'm' }).catch((e: unknown) => e);
    expect(isQueueError(noGroup, QueueErrorCode.groupNotFound)).toBe(true);
    await queue.createGroup('dlq', 'm', '0');
    for (const maxPerSecond of [0, 501, 1.5]) {
      const bad = await queue.startMove('dlq', { group: 'm', maxPerSecond }).catch((e: unknown) => e);
      expect(isQueueError(bad, QueueErrorCode.invalidArgument)).toBe(true);
    }
    expect(await queue.listMoves('dlq')).toEqual([]);
    const handles: string[] = [];
    for (let i = 0; i < 12; i++) {
      clock.advance(1);
      handles.push((await queue.startMove('dlq', { group: 'm' })).handle);
    }
    const kept = await queue.listMoves('dlq');
    expect(kept.map((t) => t.handle)).toEqual(handles.slice(2).reverse());
    expect(kept.every((t) => t.status === 'COMPLETED' && t.moved === 0)).toBe(true);
    expect((await queue.listMoves('dlq', 3)).map((t) => t.handle)).toEqual(handles.slice(9).reverse());
    await queue.deleteQueue('dlq');
    const gone = await queue.listMoves('dlq').catch((e: unknown) => e);
    expect(isQueueError(gone, QueueErrorCode.queueNotFound)).toBe(true);
  });

  it('repeats a step cut off between its produce and its ack without a duplicate', async () => {
    const { queue, clock, client, another } = make();
    await deadLettered(queue, clock, [1, 2, 3]);
    const crashing = another({ redis: failing(client, 'ack') });
    const task = await crashing.startMove('dlq', { group: 'm' });
    expect(task).toMatchObject({ status: 'RUNNING', moved: 0 });
    // Produced into src, not acked in dlq: held by the task's consumer until its lease ends.
    expect((await queue.stats('dlq')).groups[0]?.pending).toBe(3);
    clock.advance(VT);
    await queue.sweep();
    expect((await queue.listMoves('dlq'))[0]).toMatchObject({ status: 'COMPLETED', moved: 3 });
    expect((await drain(queue, 'src')).map((m) => m.body).sort()).toEqual([1, 2, 3]);
    expect(await drain(queue, 'dlq', 'm')).toEqual([]);
  });
});

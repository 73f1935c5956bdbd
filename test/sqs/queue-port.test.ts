/**
 * The SQS port's delete and visibility change over the real queue service (on the engine): each is
 * one holder-checked call, so a stale receipt handle never acts on a newer delivery.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../lib/clock.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { createQueueService } from '../../lib/queue/service.ts';
import type { QueueService } from '../../lib/queue/types.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { SQS_GROUP } from '../../lib/sqs/port.ts';
import { createQueuePort } from '../../lib/sqs/queue-port.ts';

const VT = 30_000;

async function setup() {
  const clock = createManualClock();
  const real = createQueueService({ redis: createEngineClient(createEngine({ clock })), clock });
  const called: string[] = [];
  // Records which QueueService methods the port calls (the real service does the work).
  const queue = new Proxy(real, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        called.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as QueueService;
  const port = createQueuePort({ queue, clock, sleep: async (ms) => clock.advance(ms) });
  await port.createQueue('jobs', { visibilityTimeoutMs: VT }, {});
  await port.send('jobs', [{ body: 'work' }]);
  const receive = () => port.receive('jobs', { count: 1, waitMs: 0 });
  return { clock, real, port, called, receive };
}

describe('the SQS queue port', () => {
  it("does not let a stale handle's delete or visibility change touch the newer delivery", async () => {
    const { clock, real, port, called, receive } = await setup();
    const old = await receive();
    const [message] = old.messages;
    if (message === undefined) throw new Error('nothing received');
    clock.advance(VT);
    const newer = await receive();
    expect(newer.messages.map((m) => [m.id, m.deliveries])).toEqual([[message.id, 2]]);
    const stale = { id: message.id, holder: old.holder, deliveries: 1 };

    called.length = 0;
    expect(await port.deleteMessages('jobs', [stale])).toEqual(['stale']);
    // One holder-checked ack: nothing between a check and the act.
    expect(called).toEqual(['ack']);
    called.length = 0;
    expect(await port.changeVisibility('jobs', [{ ...stale, timeoutMs: 0 }])).toEqual(['stale']);
    expect(called[0]).toBe('extend');
    expect(called.filter((name) => name === 'ack' || name === 'nack' || name === 'extend')).toEqual([
      'extend',
    ]);

    // The newer delivery keeps its message and its lease.
    const [entry] = await real.pendingRange('jobs', SQS_GROUP, { start: '-', end: '+', count: 10 });
    expect(entry).toMatchObject({ id: message.id, consumer: newer.holder, state: 'leased' });
    expect(entry?.eligibleAt).toBe(clock.now() + VT);
    expect((await receive()).messages).toEqual([]);

    // The newer handle acts: a visibility change to 0 gives it back at once, delivery count kept.
    const current = { id: message.id, holder: newer.holder, deliveries: 2 };
    expect(await port.changeVisibility('jobs', [{ ...current, timeoutMs: 0 }])).toEqual(['done']);
    const third = await receive();
    expect(third.messages.map((m) => m.deliveries)).toEqual([3]);
    expect(await port.deleteMessages('jobs', [current])).toEqual(['stale']);
    const latest = { id: message.id, holder: third.holder, deliveries: 3 };
    expect(await port.deleteMessages('jobs', [latest, latest])).toEqual(['done', 'done']);
    expect(await port.deleteMessages('jobs', [latest])).toEqual(['gone']);
    expect(await port.changeVisibility('jobs', [{ ...latest, timeoutMs: 5000 }])).toEqual(['gone']);
  });

  it('changes the visibility of a delivery whose timeout ended or was set before, and keeps its count', async () => {
    const { clock, real, port, receive } = await setup();
    const got = await receive();
    const [message] = got.messages;
    if (message === undefined) throw new Error('nothing received');
    const ref = { id: message.id, holder: got.holder, deliveries: 1 };
    expect(await port.changeVisibility('jobs', [{ ...ref, timeoutMs: 60_000 }])).toEqual(['done']);
    clock.advance(60_000);
    // Ended, nobody received it since: AWS still answers 200.
    expect(await port.changeVisibility('jobs', [{ ...ref, timeoutMs: 10_000 }])).toEqual(['done']);
    const [entry] = await real.pendingRange('jobs', SQS_GROUP, { start: '-', end: '+', count: 10 });
    expect(entry).toMatchObject({ state: 'leased', eligibleAt: clock.now() + 10_000, deliveries: 1 });
    expect((await receive()).messages).toEqual([]);
  });
});

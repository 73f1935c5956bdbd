/**
 * Conformance: many consumers racing on one group, some stopping without ack, nacks, delayed
 * messages and sweeps running concurrently. After every round the accounting must hold (nothing
 * lost), no message may be held by two consumers at once, and at the end every message is acked
 * or dead-lettered exactly once.
 */
import { expect, it } from 'vitest';
import { seededRandom as random } from './support/random.ts';
import { onEveryBackend } from './support/suite.ts';

const VT = 1000;
const MESSAGES = 200;
const DELAYED = 20;
const CONSUMERS = 8;

onEveryBackend('concurrency', (make) => {
  it('accounts for every message exactly once with racing consumers, crashes, nacks and sweeps', async () => {
    const seed = Date.now() % 100_000;
    const rand = random(seed);
    const { queue, clock, another, partitions } = make({
      defaults: { visibilityTimeoutMs: VT, maxDeliveries: 3 },
    });
    const sweeper = another({ defaults: { visibilityTimeoutMs: VT, maxDeliveries: 3 } });
    await queue.createGroup('race', 'g', '0');
    const produced = new Set<string>();
    for (let i = 0; i < MESSAGES; i += 50) {
      const ids = await queue.produce(
        'race',
        Array.from({ length: 50 }, (_, j) => ({ body: { n: i + j } })),
      );
      for (const id of ids) produced.add(id);
    }
    await queue.produce(
      'race',
      Array.from({ length: DELAYED }, (_, j) => ({ body: { delayed: j }, delayMs: 200 + j * 100 })),
    );
    const bodies = new Set<string>();
    const acked = new Set<string>();
    /** id → holder and lease end, while a consumer holds it. */
    const holders = new Map<string, { consumer: string; until: number }>();

    for (let round = 0; round < 300; round++) {
      const now = clock.now();
      const work = Array.from({ length: CONSUMERS }, async (_, c) => {
        const consumer = `c${c}`;
        const got = await queue.consume('race', 'g', consumer, 1 + Math.floor(rand() * 8));
        const toAck: string[] = [];
        const toNack: string[] = [];
        for (const message of got) {
          const holder = holders.get(message.id);
          // Nobody else may hold it unless their lease ran out (or they gave it back).
          if (holder !== undefined && holder.consumer !== consumer && holder.until > now) {
            throw new Error(
              `${message.id} delivered to ${consumer} while ${holder.consumer} held it (seed ${seed})`,
            );
          }
          holders.set(message.id, { consumer, until: now + VT });
          bodies.add(JSON.stringify(message.body));
          const fate = rand();
          if (fate < 0.65) toAck.push(message.id);
          else if (fate < 0.8) toNack.push(message.id);
          // else: the consumer "crashes" and never answers for this message.
        }
        if (toAck.length > 0) {
          const n = await queue.ack('race', 'g', toAck);
          for (const id of toAck) {
            expect(acked.has(id)).toBe(false);
            acked.add(id);
            holders.delete(id);
          }
          expect(n).toBe(toAck.length);
        }
        if (toNack.length > 0) {
          await queue.nack('race', 'g', toNack, Math.floor(rand() * 2 * VT));
          for (const id of toNack) holders.set(id, { consumer: '(nacked)', until: 0 });
        }
      });
      await Promise.all([...work, sweeper.sweep({ budget: 50 })]);

      // Nothing lost: every produced message is waiting, in flight, delayed, acked or dead-lettered.
      const stats = await queue.stats('race');
      const group = stats.groups[0];
      if (group === undefined) throw new Error('group vanished');
      // Waiting: entries after the group's last-delivered id. Over several partitions that position
      // is per partition, and the group's lag (summed over partitions) counts exactly those.
      let waiting: number;
      if (partitions === 1) {
        waiting = (await queue.browse('race', { start: `(${group.lastDeliveredId}`, count: 1000 })).length;
      } else {
        expect(group.lag).not.toBeNull();
        waiting = group.lag as number;
      }
      expect(acked.size + stats.deadLetters + group.pending + stats.delayed + waiting).toBe(
        MESSAGES + DELAYED,
      );
      if (acked.size + stats.deadLetters === MESSAGES + DELAYED) break;
      clock.advance(Math.floor(rand() * 600));
    }

    const { deadLetters, cursor } = await queue.listDeadLetters('race', { count: 1000 });
    expect(cursor).toBeNull();
    const dead = deadLetters.map((d) => d.deadLetteredFrom);
    expect(new Set(dead).size).toBe(dead.length);
    expect(dead.filter((id) => acked.has(id))).toEqual([]);
    expect(acked.size + dead.length).toBe(MESSAGES + DELAYED);
    for (const id of produced) expect(acked.has(id) || dead.includes(id)).toBe(true);
    expect(deadLetters.every((d) => d.deliveries >= 3 && d.group === 'g')).toBe(true);
    expect(bodies.size).toBe(MESSAGES + DELAYED);
    expect((await queue.pendingSummary('race', 'g')).pending).toBe(0);
  });
});

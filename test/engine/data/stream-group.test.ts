import { describe, expect, it } from 'vitest';
import { Stream } from '../../../lib/engine/data/stream.ts';
import { type ClaimOptions, ConsumerGroup } from '../../../lib/engine/data/stream-group.ts';
import { formatKey, type IdKey, keyOf, MAX_KEY, MIN_KEY } from '../../../lib/engine/data/stream-id.ts';

/** A small deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface ModelRecord {
  owner: string;
  time: number;
  count: number;
}

/**
 * The group PEL and the consumer PELs against a plain model (a map of records) under thousands of
 * random deliveries, acks, claims, autoclaims, history reads, stream deletions, consumer deletions
 * and SETID rewinds: enough records per consumer that the trees split in the middle, hints go
 * stale and leaves empty.
 */
describe('ConsumerGroup PELs', () => {
  it('match a model of the pending records under random operations', () => {
    for (const seed of [11, 12, 13]) {
      const next = rng(seed);
      const pick = (n: number) => Math.floor(next() * n);
      const stream = new Stream();
      const group = new ConsumerGroup(MIN_KEY, 0);
      const model = new Map<IdKey, ModelRecord>();
      const names = ['amy', 'bob', 'cat', 'dan'];
      let now = 1000;
      let lastMs = 0;
      const keyAt = (ms: number) => keyOf(ms, 0);
      const anyKey = () => keyAt(1 + pick(lastMs + 5));
      const live = (key: IdKey) => stream.get(key) !== undefined;
      const sortedModel = () => [...model.keys()].sort();

      const check = () => {
        const all = group.firstPending(0);
        const keys = sortedModel();
        expect(all.map((row) => [row.id, row.consumer.name, row.deliveryTime, row.deliveryCount])).toEqual(
          keys.map((key) => {
            const r = model.get(key)!;
            return [formatKey(key), r.owner, r.time, r.count];
          }),
        );
        expect(group.pel.size).toBe(model.size);
        for (const [name, consumer] of group.consumers) {
          const own = keys.filter((key) => model.get(key)!.owner === name);
          expect(consumer.pel.size).toBe(own.length);
          expect(consumer.pel.keysArray()).toEqual(own);
          const rows = group.pendingRange(MIN_KEY, MAX_KEY, 1e9, 0, now, consumer);
          expect(rows.map((row) => row.id)).toEqual(own.map(formatKey));
        }
      };

      for (let step = 0; step < 4000; step++) {
        now += pick(3);
        const op = next();
        const name = names[pick(names.length)]!;
        if (op < 0.2) {
          // XADD a few, then XREADGROUP > for one consumer.
          for (let n = pick(90); n > 0; n--) stream.append(keyAt(++lastMs), ['f', String(lastMs)]);
          const consumer = group.consumer(name, now);
          const delivered = group.deliverNew(stream, consumer, pick(130), false, now);
          for (const entry of delivered) model.set(entry.key, { owner: name, time: now, count: 1 });
        } else if (op < 0.32) {
          const keys = Array.from({ length: 1 + pick(20) }, anyKey);
          const expected = new Set(keys.filter((key) => model.has(key))).size;
          expect(group.ack(keys)).toBe(expected);
          for (const key of keys) model.delete(key);
        } else if (op < 0.55) {
          const keys = Array.from({ length: 1 + pick(8) }, anyKey);
          const options: ClaimOptions = {
            minIdle: next() < 0.5 ? 0 : pick(20),
            deliveryTime: now - pick(5),
            retryCount: next() < 0.8 ? -1 : pick(9),
            force: next() < 0.3,
            justId: next() < 0.3,
          };
          const expected: string[] = [];
          for (const key of keys) {
            const record = model.get(key);
            if (!live(key)) {
              model.delete(key);
              continue;
            }
            if (record === undefined) {
              if (!options.force) continue;
              const created = { owner: name, time: options.deliveryTime, count: 1 };
              if (options.retryCount >= 0) created.count = options.retryCount;
              else if (!options.justId) created.count = 2;
              model.set(key, created);
              expected.push(formatKey(key));
              continue;
            }
            if (options.minIdle !== 0 && now - record.time < options.minIdle) continue;
            record.owner = name;
            record.time = options.deliveryTime;
            if (options.retryCount >= 0) record.count = options.retryCount;
            else if (!options.justId) record.count++;
            expected.push(formatKey(key));
          }
          const claimed = group.claim(stream, name, keys, options, now);
          expect(claimed.map((c) => c.id)).toEqual(expected);
          for (const c of claimed) expect(c.entry.id).toBe(c.id);
        } else if (op < 0.68) {
          const start = anyKey();
          const count = 1 + pick(15);
          const minIdle = next() < 0.5 ? 0 : pick(20);
          const justId = next() < 0.5;
          let attempts = count * 10;
          let left = count;
          let cursor = MIN_KEY;
          const claimedIds: string[] = [];
          const deletedIds: string[] = [];
          for (const key of sortedModel().filter((k) => k >= start)) {
            if (attempts === 0 || left === 0) {
              cursor = key;
              break;
            }
            attempts--;
            const record = model.get(key)!;
            if (!live(key)) {
              model.delete(key);
              deletedIds.push(formatKey(key));
              left--;
              continue;
            }
            if (minIdle !== 0 && now - record.time < minIdle) continue;
            record.owner = name;
            record.time = now;
            if (!justId) record.count++;
            claimedIds.push(formatKey(key));
            left--;
          }
          const result = group.autoClaim(stream, name, start, count, minIdle, justId, now);
          expect(result.next).toBe(cursor);
          expect(result.claimed.map((c) => c.id)).toEqual(claimedIds);
          expect(result.deleted).toEqual(deletedIds);
        } else if (op < 0.78) {
          const consumer = group.consumer(name, now);
          const after = next() < 0.3 ? MIN_KEY : anyKey();
          const count = pick(30);
          const own = sortedModel().filter((key) => key > after && model.get(key)!.owner === name);
          const rows = group.readHistory(stream, consumer, after, count, now);
          const expected = count > 0 ? own.slice(0, count) : own;
          expect(rows.map((row) => [row.id, row.entry !== undefined])).toEqual(
            expected.map((key) => [formatKey(key), live(key)]),
          );
          for (const key of expected) {
            if (!live(key)) continue;
            const record = model.get(key)!;
            record.time = now;
            record.count++;
          }
        } else if (op < 0.86) {
          stream.delete(Array.from({ length: 1 + pick(10) }, anyKey));
        } else if (op < 0.9) {
          // Pending range of the group with an end and an idle filter.
          const start = anyKey();
          const end = anyKey();
          const minIdle = pick(10);
          const count = 1 + pick(30);
          const expected = sortedModel()
            .filter((key) => key >= start && key <= end && now - model.get(key)!.time >= minIdle)
            .slice(0, count);
          const rows = group.pendingRange(start, end, count, minIdle, now);
          expect(rows.map((row) => row.id)).toEqual(expected.map(formatKey));
        } else if (op < 0.92) {
          const had = [...model.values()].filter((r) => r.owner === name).length;
          const exists = group.consumers.has(name);
          expect(group.deleteConsumer(name)).toBe(exists ? had : 0);
          for (const [key, r] of model) if (r.owner === name) model.delete(key);
        } else if (op < 0.94) {
          // XGROUP SETID back: deliveries of the same ids take the records over.
          group.lastKey = keyAt(Math.max(0, lastMs - pick(300)));
        }
        if (step % 100 === 0 || step === 3999) check();
      }
      check();
    }
  });
});

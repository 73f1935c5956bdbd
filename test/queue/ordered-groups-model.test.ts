/**
 * Conformance: ordered message groups under 8 concurrent consumers with random crashes (leases
 * that expire), nacks and sweeps, checked against a model on every backend:
 *   - a message of a key is delivered only once every earlier message of its key is finished
 *     (acked or dead-lettered), so no two messages of a key are ever in flight at once
 *     (maxInFlightPerKey 1), and each key's messages are first acked in produce order;
 *   - the hidden-state invariant: every produced message is exactly one of waiting, blocked behind
 *     its key, in flight, delayed, acked or dead-lettered, as message lookup reports it, and that
 *     agrees with what the consumers did;
 *   - at the end every message was acked or dead-lettered, exactly once.
 * Each round consumes in parallel, then acks and nacks in parallel, so the model knows what was
 * finished before each consume.
 */
import { expect, it } from 'vitest';
import { compareIds } from '../../lib/queue/partitions/ids.ts';
import type { Message, QueueService } from '../../lib/queue/types.ts';
import { seededRandom as random } from './support/random.ts';
import { onEveryBackend } from './support/suite.ts';

const VT = 1000;
const KEYS = 10;
const PER_KEY = 5;
const FREE = 20;
const DELAYED = 10;
const CONSUMERS = 8;
const ROUNDS = 60;

interface Produced {
  /** Its stream id, or its delayed token until it is due. */
  id: string;
  key: string | null;
  delayed: boolean;
}

/** A delayed message's token; its stream id comes once it is due. */
const isToken = (id: string) => id.startsWith('delayed-');

onEveryBackend('ordered message groups under concurrency (model)', (make) => {
  it('keeps one message of a key in flight, in order, and every message in exactly one state', async () => {
    const seed = Date.now() % 100_000;
    const rand = random(seed);
    const where = `(seed ${seed})`;
    const defaults = { visibilityTimeoutMs: VT, maxDeliveries: 3, retentionMs: 86_400_000 };
    const { queue, clock, another } = make({ defaults });
    const sweeper = another({ defaults });
    await queue.createGroup('ord', 'g', '0');

    type Input = { body: unknown; groupKey?: string; delayMs?: number };
    const produced = new Map<string, Produced>();
    const byKey = new Map<string, Produced[]>();
    const tokenOf = new Map<number, string>();
    async function produce(batch: Input[]): Promise<void> {
      const ids = await queue.produce('ord', batch);
      ids.forEach((id, i) => {
        const input = batch[i] as Input;
        const key = input.groupKey ?? null;
        const entry: Produced = { id, key, delayed: input.delayMs !== undefined };
        produced.set(id, entry);
        if (key !== null) byKey.set(key, [...(byKey.get(key) ?? []), entry]);
        const d = (input.body as { delayed?: number }).delayed;
        if (d !== undefined) tokenOf.set(d, id);
      });
    }

    // Keys interleaved, ungrouped ones among them, several of a key per batch (they go into the
    // keys' lines at once); delayed grouped ones, due one by one (each joins its key when due).
    const inputs: Input[] = [];
    for (let i = 0; i < PER_KEY; i++) {
      for (let k = 0; k < KEYS; k++) inputs.push({ body: { k, i }, groupKey: `key-${k}` });
      if (i < FREE / 2) inputs.push({ body: { free: i } }, { body: { free: i + FREE / 2 } });
    }
    for (let d = 0; d < DELAYED; d++) {
      inputs.push({ body: { delayed: d }, groupKey: `key-${d % KEYS}`, delayMs: 300 + d * 400 });
    }
    for (let i = 0; i < inputs.length; i += 40) await produce(inputs.slice(i, i + 40));
    /** Later, waves of one message per key (produce may leave them in the stream, reserved). */
    let wave = 0;
    const waveOf = (): Input[] => {
      wave++;
      const keys = Array.from({ length: KEYS }, (_, k) => k).filter(() => rand() < 0.6);
      return [
        ...keys.map((k) => ({ body: { k, wave }, groupKey: `key-${k}` })),
        { body: { free: `w${wave}` } },
      ];
    };

    const acked = new Map<string, number>(); // id → phase of its first ack
    const delivered = new Set<string>();
    let phase = 0;

    /** A delayed message that came due: the model takes over its stream id (found by its body). */
    function learnIds(messages: readonly Message[]): void {
      for (const message of messages) {
        const d = (message.body as { delayed?: number }).delayed;
        const token = d === undefined ? undefined : tokenOf.get(d);
        const entry = token === undefined ? undefined : produced.get(token);
        if (token === undefined || entry === undefined) continue;
        produced.delete(token);
        entry.id = message.id;
        produced.set(message.id, entry);
      }
    }

    /** The messages of `entry`'s key before it in its line: in the stream, ordered by id. */
    function earlier(entry: Produced): Produced[] {
      if (entry.key === null) return [];
      return (byKey.get(entry.key) as Produced[]).filter(
        (other) => !isToken(other.id) && compareIds(other.id, entry.id) < 0,
      );
    }

    async function finishedOrDeadLettered(id: string): Promise<boolean> {
      if (acked.has(id)) return true;
      const lookup = await queue.getMessage('ord', id);
      return lookup?.groups.some((g) => g.state === 'dead-lettered') ?? false;
    }

    async function checkDelivery(message: Message): Promise<void> {
      const entry = produced.get(message.id);
      expect(entry, `unknown id ${message.id} ${where}`).toBeDefined();
      if (entry === undefined || entry.key === null) return;
      expect(message.groupKey).toBe(entry.key);
      for (const before of earlier(entry)) {
        if (!(await finishedOrDeadLettered(before.id))) {
          throw new Error(
            `${message.id} (${entry.key}) delivered while ${before.id} was unfinished ${where}`,
          );
        }
      }
    }

    async function checkStates(service: QueueService): Promise<void> {
      learnIds(await service.browse('ord', { count: 1000 }));
      const pendingPerKey = new Map<string, number>();
      for (const entry of [...produced.values()]) {
        const lookup = await service.getMessage('ord', entry.id);
        expect(lookup, `${entry.id} vanished ${where}`).not.toBeNull();
        if (lookup === null) continue;
        if (lookup.state === 'delayed') {
          expect(entry.delayed).toBe(true);
          expect(delivered.has(entry.id)).toBe(false);
          continue;
        }
        expect(lookup.groups, `${entry.id} ${where}`).toHaveLength(1);
        const state = lookup.groups[0];
        if (state === undefined) continue;
        if (acked.has(entry.id)) {
          expect(state.state, `${entry.id} was acked ${where}`).toBe('acked');
        } else if (delivered.has(entry.id)) {
          expect(['pending', 'dead-lettered'], `${entry.id} is in flight ${where}`).toContain(state.state);
        } else {
          expect(['waiting', 'blocked'], `${entry.id} was never delivered ${where}`).toContain(state.state);
        }
        if (state.state === 'blocked') {
          expect(entry.key).not.toBeNull();
          const head = produced.get(state.blockedBy as string);
          expect(head?.key, `${entry.id} blocked by ${state.blockedBy} ${where}`).toBe(entry.key);
          expect(compareIds(state.blockedBy as string, entry.id)).toBeLessThan(0);
          expect(acked.has(state.blockedBy as string)).toBe(false);
        }
        if (state.state === 'waiting' && entry.key !== null) {
          // The next of its key: everything earlier of the key is finished.
          for (const before of earlier(entry)) {
            expect(
              await finishedOrDeadLettered(before.id),
              `${entry.id} waits before ${before.id} ${where}`,
            ).toBe(true);
          }
        }
        if (state.state === 'pending' && entry.key !== null) {
          pendingPerKey.set(entry.key, (pendingPerKey.get(entry.key) ?? 0) + 1);
        }
      }
      for (const [key, n] of pendingPerKey) expect(n, `${key} has ${n} in flight ${where}`).toBe(1);
    }

    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) await produce(waveOf());
      phase++;
      // Consume (and sometimes sweep) in parallel.
      const outcomes = await Promise.all([
        ...Array.from({ length: CONSUMERS }, (_, c) =>
          queue.consume('ord', 'g', `c${c}`, 1 + Math.floor(rand() * 4)),
        ),
        rand() < 0.2 ? sweeper.sweep().then(() => [] as Message[]) : Promise.resolve([] as Message[]),
      ]);
      const got = outcomes.flat();
      learnIds(got);
      for (const message of got) {
        await checkDelivery(message);
        delivered.add(message.id);
      }
      // Per key, one message in this phase at most (they would both be in flight).
      const keysNow = got.map((m) => m.groupKey).filter((key) => key !== undefined);
      expect(new Set(keysNow).size, `a key delivered twice in one phase ${where}`).toBe(keysNow.length);
      phase++;
      const toAck: string[] = [];
      const toNack: string[] = [];
      for (const message of got) {
        const fate = rand();
        if (fate < 0.6) toAck.push(message.id);
        else if (fate < 0.75) toNack.push(message.id);
        // else: the consumer crashed holding it; its lease runs out.
      }
      await Promise.all([
        ...toAck.map(async (id) => {
          await queue.ack('ord', 'g', [id]);
          if (!acked.has(id)) acked.set(id, phase);
        }),
        toNack.length > 0 ? queue.nack('ord', 'g', toNack, 0) : Promise.resolve(0),
      ]);
      if (round % 6 === 5) await checkStates(queue);
      clock.advance(Math.floor(rand() * (VT / 2)));
    }

    // Drain: everything left comes back once its lease runs out, until all is finished.
    for (let i = 0; i < 400; i++) {
      clock.advance(VT);
      const got = (
        await Promise.all(Array.from({ length: 4 }, (_, c) => queue.consume('ord', 'g', `d${c}`, 10)))
      ).flat();
      phase++;
      learnIds(got);
      for (const message of got) await checkDelivery(message);
      for (const message of got) delivered.add(message.id);
      phase++;
      if (got.length > 0)
        await queue.ack(
          'ord',
          'g',
          got.map((m) => m.id),
        );
      for (const message of got) if (!acked.has(message.id)) acked.set(message.id, phase);
      const stats = await queue.stats('ord');
      const [group] = stats.groups;
      if (stats.delayed === 0 && group?.pending === 0 && group.lag === 0 && group.keyedWaiting === 0) break;
    }
    await checkStates(queue);
    const dead = new Set<string>();
    for (let cursor: string | null | undefined; ; ) {
      const page = await queue.listDeadLetters('ord', { count: 1000, ...(cursor ? { cursor } : {}) });
      for (const letter of page.deadLetters) {
        expect(
          dead.has(letter.deadLetteredFrom),
          `${letter.deadLetteredFrom} dead-lettered twice ${where}`,
        ).toBe(false);
        dead.add(letter.deadLetteredFrom);
      }
      if (page.cursor === null) break;
      cursor = page.cursor;
    }
    for (const id of produced.keys()) {
      expect(
        acked.has(id) !== dead.has(id),
        `${id} acked ${acked.has(id)}, dead ${dead.has(id)} ${where}`,
      ).toBe(true);
    }
    // Each key's first acks follow produce order.
    for (const [key, messages] of byKey) {
      const line = [...messages].sort((a, b) => compareIds(a.id, b.id));
      const phases = line
        .filter((entry) => acked.has(entry.id))
        .map((entry) => acked.get(entry.id) as number);
      expect(phases, `${key} acked out of order ${where}`).toEqual([...phases].sort((a, b) => a - b));
      expect(new Set(phases).size, `${key} had two acks in one phase ${where}`).toBe(phases.length);
    }
    expect(acked.size).toBeGreaterThan(produced.size / 2);
  });
});

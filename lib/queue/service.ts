/**
 * The queue: `createQueueService` binds the Lua scripts to a Redis seam, a clock and the config
 * defaults. Every operation validates its input first (a rejected call touches nothing), then
 * runs one script per partition it touches — one atomic Redis round trip each — and every script
 * touches one cluster slot. A queue of one partition (the default) is exactly the queue from
 * before partitions: one round trip per operation.
 *
 * Partitions (lib/queue/partitions.ts, docs/queue-design.md): partition 0 holds the queue's
 * config record and its partition count; every other partition holds a copy of the config and
 * the same groups. The service remembers each queue's partition count as the scripts report it
 * (every reply that routes by it carries it), so routing costs no extra round trip; a count that
 * is behind only delays delivery from new partitions, since partitions are never removed.
 *
 * Registration is separate: produce, configure and createGroup report when the queue's config
 * lacks its `registered` marker, and the service then makes the other partitions, adds the name
 * to the registry and sets the marker (once per queue). deleteQueue and sweep also read a queue's
 * group names first and update the registry after, and redrive-all repeats its script until the
 * dead letters are gone.
 */
import type { Clock } from '../clock.ts';
import type { RedisClient } from '../redis/client.ts';
import { decodeDeadLetter, decodeMessage } from './codec.ts';
import { configFromStored, storedDefaults } from './config.ts';
import { isQueueError, QueueError, QueueErrorCode } from './errors.ts';
import { createKeySpace, type QueueKeys } from './keys.ts';
import {
  byPartition,
  compareIds,
  decodeId,
  encodeId,
  partitionBound,
  partitionOf,
  partitionStart,
} from './partitions.ts';
import {
  CALL_RULES,
  CONFIG_FIELDS,
  DEFAULT_CONFIG,
  DEFAULT_LIMITS,
  type Limits,
  LOOKUP_ID_RULE,
  MAX_PARTITIONS,
  type QueueConfig,
  U64_MAX,
} from './rules.ts';
import {
  decodeSchedule,
  dueOccurrence,
  encodeSchedule,
  nextOccurrence,
  scheduleDedupId,
} from './schedules.ts';
import { createScriptRunner } from './script-runner.ts';
import { scripts } from './scripts.generated.ts';
import type {
  DeadLetter,
  GroupStats,
  Message,
  MessageGroupState,
  PendingEntry,
  QueueService,
  QueueStats,
  SweepReport,
} from './types.ts';
import {
  checkBound,
  checkConfigPatch,
  checkGroupStart,
  checkId,
  checkIds,
  checkInt,
  checkName,
  encodeMessages,
} from './validate.ts';
import { createWatchRegistry, type WatchPoint } from './watch.ts';

export interface QueueServiceOptions {
  redis: RedisClient;
  clock: Clock;
  /** Config for queues that have not overridden a field (from the environment). */
  defaults?: Partial<QueueConfig>;
  limits?: Partial<Limits>;
  /** Prefix of every key; tests give each run its own. Default `q`. */
  keyPrefix?: string;
  /**
   * Where this instance starts rotating over partitions (produce spread, consume order): a number
   * in [0, 1). Random by default, so many stateless instances do not all start at partition 0.
   */
  random?: () => number;
}

const DEFAULT_SWEEP_BUDGET = 10_000;
const REDRIVE_BATCH = 1000;
const DEFAULT_PAGE = 100;

/**
 * Bounds that exclude every id: an exclusive start at the largest id, an exclusive end at 0-0.
 * Redis refuses them (`ERR invalid start ID for the interval`); the answer is an empty range.
 */
const EMPTY_START = `(${U64_MAX}-${U64_MAX}`;
const EMPTY_END = '(0-0';

function emptyRange(from: string, to: string): boolean {
  return from === EMPTY_START || to === EMPTY_END;
}

/** A group's keys as the scripts name them. */
function groupKeys(k: QueueKeys, group: string): { lease: string; meta: string } {
  return { lease: k.lease(group), meta: k.groupMeta(group) };
}

/** A group's key lines (ordered message groups) as the scripts name them. */
function keyLines(k: QueueKeys, group: string): { turns: string; heads: string; keyState: string } {
  return { turns: k.turns(group), heads: k.heads(group), keyState: k.keyState(group) };
}

/** A group's every key. */
function allGroupKeys(k: QueueKeys, group: string) {
  return { ...groupKeys(k, group), ...keyLines(k, group) };
}

/**
 * `<partition base>:g:`: what the scripts that find groups themselves (XINFO GROUPS) name each
 * group's keys from, as lib/queue/keys.ts does (`<prefix><group>:lease`, and so on).
 */
function groupPrefix(k: QueueKeys): string {
  return k.lease('').slice(0, -':lease'.length);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** What partition 0 says a partition must hold: its overrides (with their version) and groups. */
interface PartitionBase {
  record: readonly string[];
  groups: readonly string[];
}

/** The overrides of a stored record a copy takes, and their version. */
function copyOf(record: readonly string[]): { version: number; overrides: Record<string, string> } {
  const overrides: Record<string, string> = {};
  let version = 0;
  for (let i = 0; i + 1 < record.length; i += 2) {
    const name = record[i] as string;
    const value = record[i + 1] as string;
    if (name === 'version') version = Number(value) || 0;
    else if (name !== 'partitions' && Object.hasOwn(CONFIG_FIELDS, name)) overrides[name] = value;
    // Pause flags (the queue's, and each group's): a partition made later is paused too.
    else if (name === 'paused' || name.startsWith('paused:')) overrides[name] = value;
  }
  return { version, overrides };
}

function recordPartitions(record: readonly string[]): number {
  for (let i = 0; i + 1 < record.length; i += 2) {
    if (record[i] === 'partitions') return Number(record[i + 1]) || 1;
  }
  return 1;
}

/** consume with a sink for its watch point (consumeOrWatch; the QueueService method has none). */
interface WatchingConsume {
  consume(
    queue: string,
    group: string,
    consumer: string,
    n: number,
    sink?: (watch: WatchPoint | null) => void,
  ): Promise<Message[]>;
}

/** Adds one partition's consume reply to a watch point being built (issue 18). */
function watchPart(
  watch: { keys: string[]; ids: string[]; dueAt: number | null; ok: boolean },
  reply: { dueAt: number; streamLast: string; wakeLast: string },
  k: QueueKeys,
): void {
  // '' when the consumer is at its in-flight cap: nothing to wait for at the stream.
  if (reply.streamLast === '') watch.ok = false;
  watch.keys.push(k.stream, k.wake);
  watch.ids.push(reply.streamLast, reply.wakeLast);
  if (reply.dueAt >= 0 && (watch.dueAt === null || reply.dueAt < watch.dueAt)) watch.dueAt = reply.dueAt;
}

/** The finished watch point, its keys in one order (so waiters of a group find the same one). */
function watchPoint(
  scope: string,
  watch: { keys: string[]; ids: string[]; dueAt: number | null; ok: boolean },
): WatchPoint | null {
  if (!watch.ok || watch.keys.length === 0) return null;
  const order = watch.keys
    .map((_, i) => i)
    .sort((a, b) => (watch.keys[a] as string).localeCompare(watch.keys[b] as string));
  return {
    scope,
    keys: order.map((i) => watch.keys[i] as string),
    ids: order.map((i) => watch.ids[i] as string),
    dueAt: watch.dueAt,
  };
}

/**
 * @example
 * const queue = createQueueService({ redis: createUpstashClient({ url, token }), clock: systemClock });
 * const [id] = await queue.produce('orders', [{ body: { sku: 42 } }]);
 */
export function createQueueService(options: QueueServiceOptions): QueueService {
  const { clock } = options;
  const defaults: QueueConfig = { ...DEFAULT_CONFIG, ...checkConfigPatch(options.defaults ?? {}) };
  // What the scripts lay stored overrides over: a record without `partitions` means 1.
  const scriptDefaults = storedDefaults(defaults);
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const space = createKeySpace(options.keyPrefix);
  const run = createScriptRunner(options.redis);
  const now = (): number => Math.floor(clock.now());
  const random = options.random ?? Math.random;
  const watches = createWatchRegistry({ redis: options.redis, clock });

  /** Each queue's partition count as last reported; partition 0's word is final, a copy's only raises it. */
  const known = new Map<string, number>();
  function learn(queue: string, partitions: number, fromPartition0: boolean): number {
    const before = known.get(queue);
    const next = fromPartition0 || before === undefined ? partitions : Math.max(before, partitions);
    known.set(queue, next);
    return next;
  }

  /** Per queue (produce) or queue and group (consume): where the next call starts rotating. */
  const rotation = new Map<string, number>();
  function rotate(key: string): number {
    const at = rotation.get(key) ?? Math.floor(random() * MAX_PARTITIONS);
    rotation.set(key, (at + 1) % (MAX_PARTITIONS * 1024));
    return at;
  }

  const keysOf = (queue: string, partition: number): QueueKeys => space.queue(queue, partition);

  /** Partition 0's config record; QUEUE_NOT_FOUND when the queue does not exist. */
  async function readRecord(queue: string): Promise<readonly string[]> {
    const { exists, record } = await run(scripts.configGet, { config: keysOf(queue, 0).config }, {});
    if (!exists) throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${queue}" does not exist`);
    learn(queue, recordPartitions(record), true);
    return record;
  }

  async function readBase(queue: string): Promise<PartitionBase> {
    const record = await readRecord(queue);
    const k = keysOf(queue, 0);
    const { names } = await run(
      scripts.groups,
      { stream: k.stream, config: k.config, schedules: k.schedules },
      {},
    );
    return { record, groups: names };
  }

  /**
   * Makes partitions what partition 0 says they are (partition-sync): a copy of the config, the
   * partition count, and — for `withGroups` — the groups, created at the start of the partition.
   */
  async function syncPartitions(
    queue: string,
    partitions: readonly number[],
    count: number,
    base: PartitionBase,
    groups: readonly string[],
    marked = base.record.includes('registered'),
  ): Promise<void> {
    if (partitions.length === 0) return;
    const { version, overrides } = copyOf(base.record);
    const registered = marked ? 1 : 0;
    await Promise.all(
      partitions.map((p) => {
        const k = keysOf(queue, p);
        return run(
          scripts.partitionSync,
          { config: k.config, stream: k.stream },
          { version, partitions: count, registered, record: overrides, groups: [...groups] },
        );
      }),
    );
  }

  /**
   * Runs a call on partition `p`. A partition other than 0 that does not exist (a count learned
   * from a queue since deleted, or a partition whose making was interrupted) is looked up on
   * partition 0: made when the queue has it, else the call answers `absent`.
   */
  async function onPartition<R>(
    queue: string,
    p: number,
    call: () => Promise<R>,
    absent: () => R,
  ): Promise<R> {
    try {
      return await call();
    } catch (error) {
      if (p === 0 || !isQueueError(error, QueueErrorCode.queueNotFound)) throw error;
      const base = await readBase(queue);
      const count = recordPartitions(base.record);
      if (p >= count) return absent();
      await syncPartitions(queue, [p], count, base, base.groups);
      return call();
    }
  }

  /**
   * Registers a queue a partition reported unregistered: adds it to the registry, makes (or
   * re-marks) its other partitions, then marks partition 0's config registered. Best effort: the
   * operation itself succeeded, and a failure (or a crash) between the steps leaves a marker
   * unset, so the queue's next produce/configure/createGroup retries. Partition 0's marker is set
   * last.
   */
  async function register(
    queue: string,
    unregistered: boolean,
    partitions: number,
    base?: PartitionBase,
  ): Promise<void> {
    if (!unregistered) return;
    try {
      await run(scripts.registryAdd, { registry: space.registry }, { queue });
      if (partitions > 1) {
        const known0 = base ?? (await readBase(queue));
        await syncPartitions(queue, range(1, partitions), partitions, known0, known0.groups, true);
      }
      await run(scripts.queueMark, { config: keysOf(queue, 0).config }, {});
    } catch {
      // Healed by the next call on this queue.
    }
  }

  /**
   * Clears the `registered` marker of every partition of a queue re-created meanwhile (the name
   * just left the registry), so whichever partition its next call reaches registers it again.
   */
  async function unmark(queue: string): Promise<void> {
    const { partitions } = await run(scripts.queueUnmark, { config: keysOf(queue, 0).config }, {});
    await Promise.all(
      range(1, partitions).map((p) => run(scripts.queueUnmark, { config: keysOf(queue, p).config }, {})),
    );
  }

  /** Removes the name from the registry, then clears the markers of a queue re-created meanwhile. */
  async function unregister(queue: string): Promise<void> {
    await run(scripts.registryRemove, { registry: space.registry }, { queue });
    await unmark(queue);
  }

  async function groupsOf(queue: string) {
    const k = keysOf(queue, 0);
    const reply = await run(
      scripts.groups,
      { stream: k.stream, config: k.config, schedules: k.schedules },
      {},
    );
    learn(queue, reply.partitions, true);
    return reply;
  }

  function delivered(
    items: readonly { id: string; deliveries: number; fields: string[] }[],
    p: number,
  ): Message[] {
    return items.map(({ id, deliveries, fields }) => decodeMessage(encodeId(id, p), fields, deliveries));
  }

  function count(value: number | undefined): number {
    return checkInt(value ?? DEFAULT_PAGE, 'count', CALL_RULES.count);
  }

  /** Partitions 1..count-1 of a call that covers the whole queue, once partition 0 answered. */
  function rest<R>(queue: string, partitions: number, call: (p: number) => Promise<R>, absent: () => R) {
    return Promise.all(range(1, partitions).map((p) => onPartition(queue, p, () => call(p), absent)));
  }

  /** Runs a per-partition call on the partitions of `ids`; results in partition order. */
  async function perIdPartition<R>(
    queue: string,
    ids: readonly string[],
    call: (p: number, raw: string[]) => Promise<R>,
    absent: (raw: string[]) => R,
  ): Promise<{ p: number; raw: string[]; result: R }[]> {
    const groups = [...byPartition(ids)].sort(([a], [b]) => a - b);
    return Promise.all(
      groups.map(async ([p, raw]) => ({
        p,
        raw,
        result: await onPartition(
          queue,
          p,
          () => call(p, raw),
          () => absent(raw),
        ),
      })),
    );
  }

  const service: QueueService & WatchingConsume = {
    async configure(queue, patch) {
      checkName('queue', queue);
      const { partitions: grow, ...fields } = checkConfigPatch(patch);
      const k = keysOf(queue, 0);
      const reply = await run(
        scripts.configure,
        { config: k.config, stream: k.stream },
        { queue, patch: fields, create: grow ?? defaults.partitions, grow: grow ?? 0 },
        { subject: { queue } },
      );
      const stored = learn(queue, reply.partitions, true);
      const base: PartitionBase = { record: reply.record, groups: reply.groups };
      if (reply.unregistered) {
        await register(queue, true, stored, base);
      } else if (Object.keys(fields).length > 0) {
        // Copies of the new overrides (a copy takes only a newer version, so racing configures converge).
        await syncPartitions(queue, range(1, stored), stored, base, []);
      }
      let partitions = stored;
      if (grow !== undefined && grow > stored) partitions = await growPartitions(queue, stored, grow, base);
      return { ...configFromStored(reply.record, defaults), partitions };
    },

    async getConfig(queue) {
      checkName('queue', queue);
      const { exists, record } = await run(scripts.configGet, { config: keysOf(queue, 0).config }, {});
      if (!exists) return null;
      learn(queue, recordPartitions(record), true);
      return configFromStored(record, defaults);
    },

    async listQueues() {
      // A name can outlive its queue briefly (a delete racing a re-creation); the sweep drops it.
      const { names } = await run(
        scripts.queues,
        { registry: space.registry, sweepCursor: space.sweepCursor },
        {},
      );
      return names.sort();
    },

    async deleteQueue(queue) {
      checkName('queue', queue);
      const { partitions, names } = await groupsOf(queue);
      const remove = async (p: number) => {
        const k = keysOf(queue, p);
        const { existed } = await run(
          scripts.queueDelete,
          {
            stream: k.stream,
            dlq: k.dlq,
            dlqIndex: k.dlqIndex,
            delayed: k.delayed,
            delayedData: k.delayedData,
            config: k.config,
            schedules: k.schedules,
            groups: names.map((group) => allGroupKeys(k, group)),
          },
          {},
        );
        return existed;
      };
      // The other partitions first: partition 0's record, which names them, goes last.
      await Promise.all(range(1, partitions).map(remove));
      const existed = await remove(0);
      await unregister(queue);
      known.delete(queue);
      return existed;
    },

    async produce(queue, input) {
      checkName('queue', queue);
      const encoded = encodeMessages(input, limits);
      const ids: string[] = new Array(encoded.length);
      let waiting = encoded.map((_, i) => i);
      for (let attempt = 0; waiting.length > 0; attempt++) {
        if (attempt > MAX_PARTITIONS) {
          throw new QueueError(QueueErrorCode.redisError, 'produce could not settle the partition count');
        }
        const partitions = known.get(queue) ?? 1;
        // Unkeyed messages of one call share one partition: one round trip, order kept within it.
        const spread = partitions > 1 ? rotate(queue) % partitions : 0;
        const routed = new Map<number, { indexes: number[]; keyed: boolean }>();
        for (const i of waiting) {
          const message = encoded[i] as (typeof encoded)[number];
          // A group key is its messages' partition key (validation refuses a partitionKey beside it).
          const key = message.groupKey ?? message.partitionKey ?? message.dedupId;
          const p = key === undefined ? spread : partitionOf(key, partitions);
          const batch = routed.get(p) ?? { indexes: [], keyed: false };
          batch.indexes.push(i);
          if (key !== undefined) batch.keyed = true;
          routed.set(p, batch);
        }
        const outcomes = await Promise.all(
          [...routed].map(async ([p, batch]) => {
            const k = keysOf(queue, p);
            const dedup: string[] = [];
            const messages = batch.indexes.map((i) => {
              const message = encoded[i] as (typeof encoded)[number];
              if (message.dedupId !== undefined) dedup.push(k.dedup(message.dedupId));
              return {
                body: message.body,
                attributes: message.attributes,
                delayMs: message.delayMs,
                ttlMs: message.ttlMs,
                dedupKey: message.dedupId === undefined ? 0 : dedup.length,
                groupKey: message.groupKey ?? '',
              };
            });
            try {
              const reply = await run(
                scripts.produce,
                {
                  stream: k.stream,
                  dlq: k.dlq,
                  dlqIndex: k.dlqIndex,
                  delayed: k.delayed,
                  delayedData: k.delayedData,
                  config: k.config,
                  wake: k.wake,
                  dedup,
                },
                {
                  queue,
                  now: now(),
                  config: scriptDefaults,
                  create: p === 0 ? defaults.partitions : 0,
                  known: partitions,
                  keyed: batch.keyed ? 1 : 0,
                  groupPrefix: groupPrefix(k),
                  messages,
                },
              );
              const count = learn(queue, reply.partitions, p === 0);
              await register(queue, reply.unregistered, count);
              if (reply.rerouted) return batch.indexes;
              reply.ids.forEach((id, j) => {
                ids[batch.indexes[j] as number] = encodeId(id, p);
              });
              return [];
            } catch (error) {
              if (p === 0 || !isQueueError(error, QueueErrorCode.queueNotFound)) throw error;
              // A partition this instance believed in is missing: ask partition 0, make it if the
              // queue has it, and route these messages again (to partition 0 alone when the queue
              // itself is gone: deleted since, so this produce creates it anew).
              try {
                const base = await readBase(queue);
                const count = recordPartitions(base.record);
                if (p < count) await syncPartitions(queue, [p], count, base, base.groups);
              } catch (missing) {
                if (!isQueueError(missing, QueueErrorCode.queueNotFound)) throw missing;
                known.delete(queue);
              }
              return batch.indexes;
            }
          }),
        );
        waiting = outcomes.flat().sort((a, b) => a - b);
      }
      return ids;
    },

    async browse(queue, options) {
      checkName('queue', queue);
      const from = checkBound(options.start ?? '-', 'start');
      const to = checkBound(options.end ?? '+', 'end');
      const n = count(options.count);
      const read = async (p: number) => {
        const start = partitionBound(from, 'start', p);
        const end = partitionBound(to, 'end', p);
        // An empty range still answers QUEUE_NOT_FOUND for a queue that does not exist: read one
        // entry of partition 0 (XRANGE COUNT 0 answers nil) and drop it.
        const empty = emptyRange(start, end);
        if (empty && p > 0) return { partitions: 0, messages: [] as Message[] };
        const k = keysOf(queue, p);
        const reply = await run(
          scripts.browse,
          { stream: k.stream, config: k.config },
          empty ? { from: '-', to: '+', count: 1 } : { from: start, to: end, count: n },
          { subject: { queue } },
        );
        const messages = empty
          ? []
          : reply.entries.map(({ id, fields }) => decodeMessage(encodeId(id, p), fields, 0));
        return { partitions: reply.partitions, messages };
      };
      const first = await read(0);
      const partitions = learn(queue, first.partitions, true);
      const others = await rest(queue, partitions, read, () => ({ partitions: 0, messages: [] }));
      return merged(
        [first, ...others].flatMap((r) => r.messages),
        n,
      );
    },

    async createGroup(queue, group, start) {
      checkName('queue', queue);
      checkName('group', group);
      checkGroupStart(start);
      const create = (p: number) => {
        const k = keysOf(queue, p);
        return run(
          scripts.groupCreate,
          { stream: k.stream, config: k.config, ...keyLines(k, group) },
          { queue, group, start: partitionStart(start, p), create: p === 0 ? defaults.partitions : 0 },
        );
      };
      const first = await create(0);
      const partitions = learn(queue, first.partitions, true);
      await register(queue, first.unregistered, partitions);
      await rest(queue, partitions, create, () => first);
      return { created: first.created };
    },

    async deleteGroup(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const remove = (p: number) => {
        const k = keysOf(queue, p);
        return run(
          scripts.groupDelete,
          { stream: k.stream, config: k.config, ...allGroupKeys(k, group) },
          { group },
          { subject: { queue, group } },
        );
      };
      const first = await remove(0);
      const partitions = learn(queue, first.partitions, true);
      await rest(queue, partitions, remove, () => first);
      return first.deleted;
    },

    async consume(queue, group, consumer, n, sink?: (watch: WatchPoint | null) => void) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      checkInt(n, 'count', CALL_RULES.count);
      // Partitions in a rotating order, so each in turn is tried first: none starves while others
      // have messages. An instance that does not know the count yet starts at partition 0.
      const partitions = known.get(queue);
      const first = partitions === undefined ? 0 : rotate(`${queue}\n${group}`) % partitions;
      const order = partitions === undefined ? [0] : [...range(first, partitions), ...range(0, first)];
      let seen = partitions ?? 1;
      const out: Message[] = [];
      // Where a long poll can wait when nothing came (issue 18): each partition's stream and wake.
      const watch = { keys: [] as string[], ids: [] as string[], dueAt: null as number | null, ok: true };
      for (let i = 0; i < order.length && out.length < n; i++) {
        const p = order[i] as number;
        const k = keysOf(queue, p);
        const call = () =>
          run(
            scripts.consume,
            {
              stream: k.stream,
              dlq: k.dlq,
              dlqIndex: k.dlqIndex,
              delayed: k.delayed,
              delayedData: k.delayedData,
              config: k.config,
              ...allGroupKeys(k, group),
              wake: k.wake,
            },
            { group, consumer, count: n - out.length, now: now(), config: scriptDefaults },
            { subject: { queue, group } },
          );
        let reply: Awaited<ReturnType<typeof call>> | undefined;
        try {
          reply = await onPartition(queue, p, call, () => undefined);
        } catch (error) {
          // A partition made during a growth lacks a group created meanwhile until the growth adds
          // it there: skip it. Partition 0, which every full pass reaches, decides whether the
          // group exists (it answers GROUP_NOT_FOUND itself when it does not).
          if (p === 0 || !isQueueError(error, QueueErrorCode.groupNotFound)) throw error;
          continue;
        }
        if (reply === undefined) continue;
        out.push(...delivered(reply.messages, p));
        if (sink !== undefined) watchPart(watch, reply, k);
        const count = learn(queue, reply.partitions, p === 0);
        if (count > seen) {
          // Partitions this call did not know of: try them after the ones it planned.
          order.push(...range(seen, count));
          seen = count;
        }
      }
      if (sink !== undefined) sink(out.length === 0 ? watchPoint(`${queue}\n${group}`, watch) : null);
      return out;
    },

    async consumeOrWatch(queue, group, consumer, n) {
      const scope = `${queue}\n${group}`;
      // Another waiter of this group in this process holds an unfired watch: nothing was
      // deliverable when it was made and nothing arrived since (lib/queue/watch.ts).
      const joinable = watches.active(scope, consumer);
      if (joinable !== null) return { messages: [], watch: joinable };
      let watch: WatchPoint | null = null;
      const messages = await service.consume(queue, group, consumer, n, (point) => {
        watch = point;
      });
      watches.consumed(scope, consumer);
      return { messages, watch };
    },

    waitForWork(point, until, signal, pause) {
      return watches.wait(point, until, signal, pause);
    },

    async ack(queue, group, ids) {
      checkName('queue', queue);
      checkName('group', group);
      const checked = checkIds(ids);
      const parts = await perIdPartition(
        queue,
        checked,
        async (p, raw) => {
          const k = keysOf(queue, p);
          const { acked } = await run(
            scripts.ack,
            { stream: k.stream, config: k.config, ...allGroupKeys(k, group), wake: k.wake },
            { group, ids: raw },
            { subject: { queue, group } },
          );
          return acked;
        },
        () => 0,
      );
      return parts.reduce((sum, part) => sum + part.result, 0);
    },

    async nack(queue, group, ids, delayMs) {
      checkName('queue', queue);
      checkName('group', group);
      const checked = checkIds(ids);
      // -1: the call named no delay, so the queue's retry backoff gives it.
      const delay = delayMs === undefined ? -1 : checkInt(delayMs, 'delayMs', CALL_RULES.delayMs);
      const parts = await perIdPartition(
        queue,
        checked,
        async (p, raw) => {
          const k = keysOf(queue, p);
          const { requeued } = await run(
            scripts.nack,
            { stream: k.stream, config: k.config, ...groupKeys(k, group), wake: k.wake },
            { group, now: now(), delayMs: delay, config: scriptDefaults, ids: raw },
            { subject: { queue, group } },
          );
          return requeued;
        },
        () => 0,
      );
      return parts.reduce((sum, part) => sum + part.result, 0);
    },

    async extend(queue, group, consumer, ids) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const checked = checkIds(ids);
      const parts = await perIdPartition(
        queue,
        checked,
        (p, raw) => {
          const k = keysOf(queue, p);
          return run(
            scripts.extend,
            { stream: k.stream, config: k.config, ...groupKeys(k, group) },
            { group, consumer, now: now(), config: scriptDefaults, ids: raw },
            { subject: { queue, group } },
          );
        },
        (raw) => ({ extended: [], lost: raw }),
      );
      // Each partition answers its ids in order, each either extended or lost: read them back in
      // the order the ids were given.
      const cursors = new Map(parts.map(({ p, result }) => [p, { ...result, e: 0, l: 0 }]));
      const extended: string[] = [];
      const lost: string[] = [];
      for (const id of checked) {
        const { raw, partition } = decodeId(id);
        const part = cursors.get(partition);
        if (part === undefined) continue;
        if (part.extended[part.e] === raw) {
          part.e++;
          extended.push(id);
        } else {
          part.l++;
          lost.push(id);
        }
      }
      return { extended, lost };
    },

    async reclaim(queue, group, consumer, options) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const minIdleMs = checkInt(options.minIdleMs, 'minIdleMs', CALL_RULES.minIdleMs);
      const n = count(options.count);
      const cursor = decodeId(checkId(options.cursor ?? '0-0', 'cursor'));
      const messages: Message[] = [];
      const deleted: string[] = [];
      let partitions = Math.max(known.get(queue) ?? 1, cursor.partition + 1);
      // The PEL of each partition in turn, from the cursor's partition on, until count is reached.
      for (let p = cursor.partition, from = cursor.raw; p < partitions; p++, from = '0-0') {
        const k = keysOf(queue, p);
        const reply = await onPartition(
          queue,
          p,
          () =>
            run(
              scripts.reclaim,
              {
                stream: k.stream,
                dlq: k.dlq,
                dlqIndex: k.dlqIndex,
                config: k.config,
                ...allGroupKeys(k, group),
                wake: k.wake,
              },
              {
                group,
                consumer,
                now: now(),
                minIdleMs,
                count: n - messages.length,
                cursor: from,
                config: scriptDefaults,
              },
              { subject: { queue, group } },
            ),
          () => undefined,
        );
        if (reply === undefined) continue;
        partitions = Math.max(partitions, learn(queue, reply.partitions, p === 0));
        messages.push(...delivered(reply.messages, p));
        deleted.push(...reply.deleted.map((id) => encodeId(id, p)));
        if (reply.cursor !== '0-0') return { cursor: encodeId(reply.cursor, p), messages, deleted };
        if (messages.length >= n && p + 1 < partitions) {
          return { cursor: encodeId('0-0', p + 1), messages, deleted };
        }
      }
      return { cursor: '0-0', messages, deleted };
    },

    async pendingSummary(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const read = async (p: number) => {
        const k = keysOf(queue, p);
        const reply = await run(
          scripts.pendingSummary,
          { stream: k.stream, config: k.config },
          { group },
          { subject: { queue, group } },
        );
        return {
          partitions: reply.partitions,
          pending: reply.pending,
          minId: reply.minId === null ? null : encodeId(reply.minId, p),
          maxId: reply.maxId === null ? null : encodeId(reply.maxId, p),
          consumers: reply.consumers ?? [],
        };
      };
      const first = await read(0);
      const partitions = learn(queue, first.partitions, true);
      if (partitions === 1) {
        return { pending: first.pending, minId: first.minId, maxId: first.maxId, consumers: first.consumers };
      }
      const all = [
        first,
        ...(await rest(queue, partitions, read, () => ({
          ...first,
          pending: 0,
          minId: null,
          maxId: null,
          consumers: [],
        }))),
      ];
      const held = new Map<string, number>();
      let minId: string | null = null;
      let maxId: string | null = null;
      for (const part of all) {
        for (const { name, pending } of part.consumers) held.set(name, (held.get(name) ?? 0) + pending);
        if (part.minId !== null && (minId === null || compareIds(part.minId, minId) < 0)) minId = part.minId;
        if (part.maxId !== null && (maxId === null || compareIds(part.maxId, maxId) > 0)) maxId = part.maxId;
      }
      return {
        pending: all.reduce((sum, part) => sum + part.pending, 0),
        minId,
        maxId,
        consumers: [...held]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([name, pending]) => ({ name, pending })),
      };
    },

    async pendingRange(queue, group, options) {
      checkName('queue', queue);
      checkName('group', group);
      const from = checkBound(options.start, 'start');
      const to = checkBound(options.end, 'end');
      const n = count(options.count);
      if (options.consumer !== undefined) checkName('consumer', options.consumer);
      const minIdleMs = checkInt(options.minIdleMs ?? 0, 'minIdleMs', CALL_RULES.minIdleMs);
      const read = async (p: number) => {
        const start = partitionBound(from, 'start', p);
        const end = partitionBound(to, 'end', p);
        const empty = emptyRange(start, end);
        if (empty && p > 0) return { partitions: 0, entries: [] as PendingEntry[] };
        const k = keysOf(queue, p);
        const reply = await run(
          scripts.pendingRange,
          { stream: k.stream, config: k.config, ...groupKeys(k, group) },
          {
            group,
            now: now(),
            // An empty range still answers GROUP_NOT_FOUND for a group that does not exist.
            ...(empty ? { from: '-', to: '+', count: 0 } : { from: start, to: end, count: n }),
            consumer: options.consumer ?? '',
            minIdleMs,
            config: scriptDefaults,
          },
          { subject: { queue, group } },
        );
        return {
          partitions: reply.partitions,
          entries: reply.entries.map((entry) => ({ ...entry, id: encodeId(entry.id, p) })),
        };
      };
      const first = await read(0);
      const partitions = learn(queue, first.partitions, true);
      const others = await rest(queue, partitions, read, () => ({ partitions: 0, entries: [] }));
      return merged(
        [first, ...others].flatMap((r) => r.entries),
        n,
      );
    },

    async listDeadLetters(queue, options) {
      checkName('queue', queue);
      const n = count(options.count);
      const cursor = options.cursor === undefined ? '-' : checkId(options.cursor, 'cursor');
      const read = async (p: number) => {
        const k = keysOf(queue, p);
        const from = partitionBound(cursor, 'start', p);
        // Past the largest id of this partition: nothing to read (Redis refuses that bound).
        const empty = from === EMPTY_START;
        const reply = await run(
          scripts.dlqList,
          { dlq: k.dlq, config: k.config },
          empty ? { from: '-', count: 0 } : { from, count: n + 1 },
        );
        return {
          partitions: reply.partitions,
          entries: reply.entries.map(({ id, fields }): DeadLetter => {
            const letter = decodeDeadLetter(encodeId(id, p), fields);
            const from = letter.deadLetteredFrom;
            return { ...letter, deadLetteredFrom: from === '' ? from : encodeId(from, p) };
          }),
        };
      };
      const first = await read(0);
      const partitions = learn(queue, first.partitions, true);
      const others = await rest(queue, partitions, read, () => ({ partitions: 0, entries: [] }));
      const all = merged(
        [first, ...others].flatMap((r) => r.entries),
        n + 1,
      );
      return { deadLetters: all.slice(0, n), cursor: all[n]?.id ?? null };
    },

    async redrive(queue, selection) {
      checkName('queue', queue);
      const keys = (p: number) => {
        const k = keysOf(queue, p);
        return { stream: k.stream, dlq: k.dlq, dlqIndex: k.dlqIndex, config: k.config };
      };
      if ('all' in selection) {
        if (selection.all !== true) throw new QueueError(QueueErrorCode.invalidArgument, 'all must be true');
        const drain = async (p: number) => {
          let total = 0;
          for (;;) {
            const reply = await run(scripts.redrive, keys(p), { mode: 'all', limit: REDRIVE_BATCH, ids: [] });
            if (p === 0) learn(queue, reply.partitions, true);
            total += reply.redriven;
            if (!reply.more || reply.redriven === 0) return total;
          }
        };
        const first = await drain(0);
        const others = await rest(queue, known.get(queue) ?? 1, drain, () => 0);
        return others.reduce((sum, n) => sum + n, first);
      }
      const ids = checkIds(selection.ids);
      const parts = await perIdPartition(
        queue,
        ids,
        async (p, raw) => (await run(scripts.redrive, keys(p), { mode: 'ids', limit: 0, ids: raw })).redriven,
        () => 0,
      );
      return parts.reduce((sum, part) => sum + part.result, 0);
    },

    async purgeDeadLetters(queue) {
      checkName('queue', queue);
      const purge = async (p: number) => {
        const k = keysOf(queue, p);
        return run(scripts.purge, { dlq: k.dlq, dlqIndex: k.dlqIndex, config: k.config }, {});
      };
      const first = await purge(0);
      const partitions = learn(queue, first.partitions, true);
      const others = await rest(queue, partitions, purge, () => ({ purged: 0, partitions }));
      return others.reduce((sum, part) => sum + part.purged, first.purged);
    },

    async stats(queue) {
      checkName('queue', queue);
      const read = (p: number, names: boolean) => {
        const k = keysOf(queue, p);
        return run(
          scripts.stats,
          { stream: k.stream, dlq: k.dlq, delayed: k.delayed, config: k.config },
          { now: now(), names: names ? 1 : 0, groupPrefix: groupPrefix(k) },
          { subject: { queue } },
        );
      };
      // Consumer names are only read when they must be merged over partitions.
      let first = await read(0, (known.get(queue) ?? 1) > 1);
      const partitions = learn(queue, first.partitions, true);
      if (partitions > 1 && first.groups.some((g) => g.consumers > 0 && g.consumerNames.length === 0)) {
        first = await read(0, true);
      }
      const parts = [
        { p: 0, reply: first },
        ...(
          await rest(
            queue,
            partitions,
            async (p) => ({ p, reply: await read(p, true) }),
            () => undefined,
          )
        ).filter((part) => part !== undefined),
      ];
      const groups: GroupStats[] = first.groups.map((g0) => {
        let pending = 0;
        let lag: number | null = 0;
        let oldest: number | null = null;
        let lastDeliveredId = g0.lastDeliveredId;
        let lastSet = false;
        let keyedWaiting = 0;
        let waitingKeys = 0;
        let oldestWaitingKey: GroupStats['oldestWaitingKey'] = null;
        const consumerNames = new Set<string>();
        for (const { p, reply } of parts) {
          const g = reply.groups.find((group) => group.name === g0.name);
          if (g === undefined) continue;
          pending += g.pending;
          // A key lives in one partition, so keys and their messages add up.
          keyedWaiting += g.keyedWaiting;
          waitingKeys += g.waitingKeys;
          if (
            g.oldestKeyId !== '' &&
            (oldestWaitingKey === null || g.oldestKeyAgeMs > oldestWaitingKey.ageMs)
          ) {
            oldestWaitingKey = {
              groupKey: g.oldestKey,
              id: encodeId(g.oldestKeyId, p),
              ageMs: g.oldestKeyAgeMs,
            };
          }
          lag = lag === null || g.lag < 0 ? null : lag + g.lag;
          if (g.oldestPendingAgeMs >= 0) oldest = Math.max(oldest ?? 0, g.oldestPendingAgeMs);
          for (const name of g.consumerNames) consumerNames.add(name);
          if (g.lastDeliveredId !== '0-0') {
            const id = encodeId(g.lastDeliveredId, p);
            if (!lastSet || compareIds(id, lastDeliveredId) > 0) lastDeliveredId = id;
            lastSet = true;
          }
        }
        return {
          name: g0.name,
          paused: g0.paused,
          pending,
          lag,
          consumers: partitions === 1 ? g0.consumers : consumerNames.size,
          oldestPendingAgeMs: oldest,
          lastDeliveredId,
          keyedWaiting,
          waitingKeys,
          oldestWaitingKey,
        };
      });
      const sum = (field: 'length' | 'delayed' | 'deadLetters') =>
        parts.reduce((total, { reply }) => total + reply[field], 0);
      return {
        name: queue,
        partitions,
        paused: first.paused,
        length: sum('length'),
        delayed: sum('delayed'),
        deadLetters: sum('deadLetters'),
        groups,
      } satisfies QueueStats;
    },

    async sweep(options = {}) {
      let budget = checkInt(options.budget ?? DEFAULT_SWEEP_BUDGET, 'budget', CALL_RULES.sweepBudget);
      const deadline =
        options.timeBudgetMs === undefined
          ? Number.POSITIVE_INFINITY
          : clock.now() + checkInt(options.timeBudgetMs, 'timeBudgetMs', CALL_RULES.sweepTimeBudgetMs);
      const report: SweepReport = {
        scheduled: 0,
        catchUps: 0,
        deadLettered: 0,
        promoted: 0,
        deletedReferences: 0,
        consumersRemoved: 0,
        trimmed: 0,
        complete: true,
      };
      const registry = { registry: space.registry, sweepCursor: space.sweepCursor };
      // A scheduled sweep reads only the queues due a visit (issue 18): none, when all is idle.
      const revisitMs =
        options.revisitMs === undefined
          ? undefined
          : checkInt(options.revisitMs, 'revisitMs', CALL_RULES.sweepRevisitMs);
      const { cursor, names: registered } =
        revisitMs === undefined
          ? await run(scripts.queues, registry, {})
          : await run(scripts.sweepPlan, { ...registry, sweepDue: space.sweepDue }, { now: now() });
      if (revisitMs !== undefined && cursor === '' && registered.length === 0) return report;
      const visits = new Map<string, number>();
      // Per queue with schedules: its next occurrence, the latest time it may be visited again.
      const nextVisit = new Map<string, number>();
      const names = registered.sort();
      // The cursor is a queue name, or `<queue>#<p>` to resume at partition p (# is not in names).
      const [cursorQueue = '', cursorPartition = '0'] = cursor.split('#');
      const first = Math.max(0, names.indexOf(cursorQueue));
      const gone: string[] = [];
      let resumeAt = '';
      const position = (queue: string, p: number) => (p === 0 ? queue : `${queue}#${p}`);
      sweeping: for (let i = 0; i < names.length; i++) {
        const queue = names[(first + i) % names.length] as string;
        const startAt = i === 0 && queue === cursorQueue ? Number(cursorPartition) || 0 : 0;
        if (budget <= 0 || clock.now() >= deadline) {
          report.complete = false;
          resumeAt = position(queue, startAt);
          break;
        }
        const { partitions, names: groupNames, schedules } = await groupsOf(queue);
        if (startAt === 0) {
          const fired = await fireSchedules(queue, schedules);
          report.scheduled += fired.scheduled;
          report.catchUps += fired.catchUps;
          // An idle queue is visited again by its next occurrence at the latest.
          const at = now();
          for (const { spec } of schedules) {
            const next = nextOccurrence(spec, at);
            if (next !== null) nextVisit.set(queue, Math.min(nextVisit.get(queue) ?? next, next));
          }
        }
        for (let p = startAt; p < partitions; p++) {
          if (p > startAt && (budget <= 0 || clock.now() >= deadline)) {
            report.complete = false;
            resumeAt = position(queue, p);
            break sweeping;
          }
          const k = keysOf(queue, p);
          const step = await run(
            scripts.sweepQueue,
            {
              stream: k.stream,
              dlq: k.dlq,
              dlqIndex: k.dlqIndex,
              delayed: k.delayed,
              delayedData: k.delayedData,
              config: k.config,
              wake: k.wake,
              groups: groupNames.map((group) => allGroupKeys(k, group)),
            },
            { queue, now: now(), budget, config: scriptDefaults, groupNames },
          );
          report.deadLettered += step.deadLettered;
          report.promoted += step.promoted;
          report.deletedReferences += step.deletedReferences;
          report.consumersRemoved += step.consumersRemoved;
          report.trimmed += step.trimmed;
          budget -= step.work;
          const changed = step.deadLettered + step.promoted + step.deletedReferences + step.consumersRemoved;
          const idle = changed + step.trimmed === 0 && step.done && (visits.get(queue) ?? 1) > 0;
          visits.set(queue, idle ? 1 : 0);
          if (!step.exists && p === 0) {
            gone.push(queue);
            break;
          }
          if (!step.exists) {
            // A partition the queue has but whose making was interrupted: make it now.
            const base = await readBase(queue);
            await syncPartitions(queue, [p], recordPartitions(base.record), base, base.groups);
          }
          if (!step.done) {
            report.complete = false;
            resumeAt = position(queue, p);
            break sweeping;
          }
        }
      }
      // One registry-slot call: where the next sweep starts, and the names of deleted queues.
      await run(scripts.sweepFinish, registry, { resumeAt, gone });
      if (revisitMs !== undefined) {
        const at = now();
        await run(
          scripts.sweepRecord,
          { registry: space.registry, sweepDue: space.sweepDue },
          {
            visits: [...visits]
              .filter(([queue]) => !gone.includes(queue))
              .map(([queue, idle]) => ({
                queue,
                at:
                  idle === 1
                    ? Math.min(at + revisitMs, nextVisit.get(queue) ?? Number.POSITIVE_INFINITY)
                    : at,
              })),
          },
        );
      }
      // A queue re-created since it was found gone re-registers on its next call.
      for (const queue of gone) {
        await unmark(queue);
        known.delete(queue);
      }
      return report;
    },

    async getMessage(queue, id) {
      checkName('queue', queue);
      if (typeof id !== 'string' || !LOOKUP_ID_RULE.pattern.test(id)) {
        throw new QueueError(QueueErrorCode.invalidArgument, `id must be ${LOOKUP_ID_RULE.text}`, { id });
      }
      const { raw, partition: p } = decodeId(id);
      const k = keysOf(queue, p);
      const reply = await onPartition(
        queue,
        p,
        () =>
          run(
            scripts.messageGet,
            {
              stream: k.stream,
              dlq: k.dlq,
              dlqIndex: k.dlqIndex,
              delayed: k.delayed,
              delayedData: k.delayedData,
              config: k.config,
            },
            {
              id: raw,
              now: now(),
              groupPrefix: groupPrefix(k),
              config: scriptDefaults,
            },
            { subject: { queue } },
          ),
        () => undefined,
      );
      if (reply === undefined || reply.kind === 'none') return null;
      learn(queue, reply.partitions, p === 0);
      const deadLetters = reply.deadLetters.map(({ id: dlqId, fields }) => {
        const letter = decodeDeadLetter(encodeId(dlqId, p), fields);
        const from = letter.deadLetteredFrom;
        return { ...letter, deadLetteredFrom: from === '' ? from : encodeId(from, p) };
      });
      const source =
        reply.kind === 'stream' || reply.kind === 'delayed'
          ? decodeMessage(id, reply.fields, 0)
          : decodeDeadLetter(id, reply.fields);
      const message = {
        body: source.body,
        attributes: source.attributes,
        enqueuedAt: source.enqueuedAt,
        ...(source.groupKey === undefined ? {} : { groupKey: source.groupKey }),
        ...(source.fields === undefined ? {} : { fields: source.fields }),
      };
      const groups: MessageGroupState[] = reply.groups.map((g) => {
        if (g.state === 'pending') {
          return {
            group: g.name,
            state: 'pending',
            consumer: g.consumer,
            deliveries: g.deliveries,
            pendingState: g.retrying ? 'retrying' : 'leased',
            eligibleAt: g.eligibleAt,
          };
        }
        if (g.state === 'dead-lettered') {
          return { group: g.name, state: 'dead-lettered', deadLetterId: encodeId(g.deadLetter, p) };
        }
        if (g.state === 'blocked') {
          return { group: g.name, state: 'blocked', blockedBy: encodeId(g.blockedBy, p) };
        }
        return { group: g.name, state: g.state === 'waiting' ? 'waiting' : 'acked' };
      });
      return {
        ...message,
        id,
        state: reply.kind === 'delayed' ? 'delayed' : reply.kind === 'stream' ? 'stream' : 'dead-lettered',
        ...(reply.kind === 'delayed' ? { deliverAt: reply.deliverAt } : {}),
        groups,
        deadLetters,
      };
    },

    async putSchedule(queue, name, input) {
      checkName('queue', queue);
      checkName('schedule', name);
      const at = now();
      const spec = encodeSchedule(input, limits, at);
      const k = keysOf(queue, 0);
      const { created } = await run(
        scripts.schedulePut,
        { config: k.config, schedules: k.schedules },
        { name, spec, now: at },
        { subject: { queue } },
      );
      // A scheduled sweep that found the queue idle would next visit it at its revisit time:
      // due now instead, so the first occurrence is not late (the registry's slot, a call of its own).
      await run(
        scripts.sweepRecord,
        { registry: space.registry, sweepDue: space.sweepDue },
        { visits: [{ queue, at }] },
      );
      return { schedule: decodeSchedule(name, spec, at, at), created };
    },

    async listSchedules(queue) {
      checkName('queue', queue);
      await readRecord(queue);
      const { schedules } = await groupsOf(queue);
      const at = now();
      return schedules
        .map(({ name, spec, last }) => decodeSchedule(name, spec, last, at))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },

    async deleteSchedule(queue, name) {
      checkName('queue', queue);
      checkName('schedule', name);
      const k = keysOf(queue, 0);
      const { deleted } = await run(
        scripts.scheduleDelete,
        { config: k.config, schedules: k.schedules },
        { name },
        { subject: { queue } },
      );
      return deleted;
    },

    pauseQueue(queue) {
      return setPaused(queue, '', true);
    },

    resumeQueue(queue) {
      return setPaused(queue, '', false);
    },

    pauseGroup(queue, group) {
      checkName('group', group);
      return setPaused(queue, group, true);
    },

    resumeGroup(queue, group) {
      checkName('group', group);
      return setPaused(queue, group, false);
    },

    async ping() {
      await run(scripts.ping, {}, {});
    },
  };

  /**
   * Fires the due occurrence of each schedule of a queue (partition 0): one script per due
   * schedule, whose compare-and-set makes racing sweeps enqueue it once.
   */
  async function fireSchedules(
    queue: string,
    schedules: readonly { name: string; spec: string; last: number }[],
  ): Promise<{ scheduled: number; catchUps: number }> {
    let scheduled = 0;
    let catchUps = 0;
    const at = now();
    const k = keysOf(queue, 0);
    for (const { name, spec, last } of schedules) {
      const due = dueOccurrence(spec, last, at);
      if (due === null) continue;
      const dedupId = scheduleDedupId(spec);
      const reply = await run(
        scripts.scheduleFire,
        {
          stream: k.stream,
          config: k.config,
          schedules: k.schedules,
          dedup: dedupId === undefined ? [] : [k.dedup(dedupId)],
        },
        { name, occurrence: due.at, previous: due.previous, now: at, config: scriptDefaults },
      );
      if (reply.fired) scheduled++;
      if (reply.fired && reply.caughtUp) catchUps++;
    }
    return { scheduled, catchUps };
  }

  /**
   * Sets or clears the pause flag of a queue (group '') or of one of its groups on every
   * partition, partition 0 first (it answers QUEUE_NOT_FOUND for a queue that does not exist). A
   * group must exist to be paused; resuming one that does not is a no-op.
   */
  async function setPaused(queue: string, group: string, paused: boolean): Promise<void> {
    checkName('queue', queue);
    if (group !== '' && paused) {
      const { names } = await groupsOf(queue);
      if (!names.includes(group)) {
        await readRecord(queue);
        throw new QueueError(
          QueueErrorCode.groupNotFound,
          `Group "${group}" of queue "${queue}" does not exist`,
        );
      }
    }
    const flag = (p: number) => {
      const k = keysOf(queue, p);
      return run(
        scripts.pause,
        { config: k.config, wake: k.wake },
        { group, paused: paused ? 1 : 0 },
        { subject: { queue } },
      );
    };
    const first = await flag(0);
    const partitions = learn(queue, first.partitions, true);
    await rest(queue, partitions, flag, () => first);
  }

  /**
   * Grows a queue from `from` to `to` partitions without losing or doubling anything: the new
   * partitions are made (config copy and every group, at their start, in one script each) before
   * any copy or partition 0 raises its count, so no message can land in a partition that lacks
   * them. A growth interrupted midway leaves partitions that exist and copies that may already say
   * `to`: nothing is lost (messages there wait, or go to instances that learned the new count),
   * and repeating the configure completes it. partitions-grow answers
   * the groups partition 0 has at the moment the count rose; a group created or deleted meanwhile
   * either is in that answer (and is added to or removed from the new partitions here) or its own
   * call saw the new count and covered the new partitions itself.
   */
  async function growPartitions(
    queue: string,
    from: number,
    to: number,
    base: PartitionBase,
  ): Promise<number> {
    // New partitions first: an instance that learns the new count (from any copy) finds them made.
    await syncPartitions(queue, range(from, to), to, base, base.groups);
    await syncPartitions(queue, range(1, from), to, base, []);
    const k = keysOf(queue, 0);
    const raised = await run(
      scripts.partitionsGrow,
      { config: k.config, stream: k.stream },
      { partitions: to },
    );
    const added = raised.groups.filter((group) => !base.groups.includes(group));
    const removed = base.groups.filter((group) => !raised.groups.includes(group));
    await syncPartitions(queue, range(from, to), raised.partitions, base, added);
    await Promise.all(
      range(from, to).flatMap((p) =>
        removed.map((group) => {
          const kp = keysOf(queue, p);
          return run(
            scripts.groupDelete,
            { stream: kp.stream, config: kp.config, ...allGroupKeys(kp, group) },
            { group },
          );
        }),
      ),
    );
    return learn(queue, raised.partitions, true);
  }

  return service;
}

/** The first `n` items of a merged read over partitions, in id order (ms, seq, partition). */
function merged<T extends { id: string }>(items: T[], n: number): T[] {
  return items.sort((a, b) => compareIds(a.id, b.id)).slice(0, n);
}

/**
 * The queues family (lib/api/routes/queues.ts): a queue's config, the registry of queues, deleting
 * a queue, and its stats merged over its partitions.
 */
import { configFromStored, storedPatch } from '../config.ts';
import type { QueueContext } from '../context.ts';
import { QueueError, QueueErrorCode } from '../errors.ts';
import { everyPartition } from '../partitions/fan-out.ts';
import { compareIds, encodeId } from '../partitions/ids.ts';
import {
  grow,
  type PartitionBase,
  range,
  readGroups,
  recordPartitions,
  register,
  syncPartitions,
  unregister,
} from '../partitions/lifecycle.ts';
import { type StatsReply, scripts } from '../scripts.generated.ts';
import type {
  GroupStats,
  QueueConfig,
  QueueMeta,
  QueueMetaPatch,
  QueueService,
  QueueStats,
} from '../types.ts';
import { checkConfigPatch, checkMetaPatch, checkName } from '../validate.ts';

export type QueueOps = Pick<
  QueueService,
  | 'configure'
  | 'createQueue'
  | 'getConfig'
  | 'describeQueue'
  | 'listQueues'
  | 'deleteQueue'
  | 'stats'
  | 'deadLetterSources'
>;

/** A metadata patch as the configure script takes it: false removes an entry (cjson's null is truthy). */
function scriptMeta(meta: QueueMetaPatch): {
  attributes: Record<string, string | false>;
  tags: Record<string, string | false>;
} {
  const convert = (map: Record<string, string | null> | undefined) =>
    Object.fromEntries(
      Object.entries(map ?? {}).map(([name, value]): [string, string | false] => [name, value ?? false]),
    );
  return { attributes: convert(meta.attributes), tags: convert(meta.tags) };
}

/**
 * The metadata in a stored record: `attr:` and `tag:` fields, `createdAt` (a queue created before
 * it was kept: the time its record was made, the `epoch`) and `modifiedAt`.
 */
export function metaFromStored(flat: readonly string[]): QueueMeta {
  const attributes: Record<string, string> = {};
  const tags: Record<string, string> = {};
  let createdAt: number | undefined;
  let epoch = 0;
  let modifiedAt: number | undefined;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    if (name.startsWith('attr:')) attributes[name.slice(5)] = value;
    else if (name.startsWith('tag:')) tags[name.slice(4)] = value;
    else if (name === 'createdAt') createdAt = Number(value) || undefined;
    else if (name === 'modifiedAt') modifiedAt = Number(value) || undefined;
    else if (name === 'epoch') epoch = Math.floor(Number(value) * 1000) || 0;
  }
  const created = createdAt ?? epoch;
  return { attributes, tags, createdAt: created, lastModifiedAt: modifiedAt ?? created };
}

export function createQueueOps(ctx: QueueContext): QueueOps {
  async function write(
    queue: string,
    patch: Partial<QueueConfig>,
    meta: unknown,
    createOnly: boolean,
  ): Promise<{ config: QueueConfig; record: readonly string[]; created: boolean }> {
    checkName('queue', queue);
    const { partitions: asked, ...fields } = checkConfigPatch(patch);
    if (fields.deadLetterQueue === queue) {
      throw new QueueError(QueueErrorCode.invalidArgument, 'deadLetterQueue must name another queue', {
        deadLetterQueue: queue,
      });
    }
    const metaPatch = scriptMeta(checkMetaPatch(meta));
    const reply = await ctx.run(
      scripts.configure,
      { queue },
      {
        patch: storedPatch(fields),
        create: asked ?? ctx.defaults.partitions,
        grow: asked ?? 0,
        meta: metaPatch,
        createOnly: createOnly ? 1 : 0,
        now: ctx.now(),
      },
    );
    const stored = ctx.partitions.learn(queue, reply.partitions, true);
    ctx.groups.setAll(queue, reply.groups);
    const base: PartitionBase = { record: reply.record, groups: reply.groups };
    const changed = !createOnly || reply.created;
    if (reply.unregistered) {
      await register(ctx, queue, true, stored, base);
    } else if (changed && Object.keys(fields).length > 0) {
      // Copies of the new overrides (a copy takes only a newer version, so racing configures converge).
      await syncPartitions(ctx, queue, range(1, stored), stored, base, []);
    }
    let partitions = stored;
    if (changed && asked !== undefined && asked > stored)
      partitions = await grow(ctx, queue, stored, asked, base);
    return {
      config: { ...configFromStored(reply.record, ctx.defaults), partitions },
      record: reply.record,
      created: reply.created,
    };
  }

  return {
    async configure(queue, patch, options) {
      return (await write(queue, patch, options?.meta, false)).config;
    },

    async createQueue(queue, patch, options) {
      const { config, record, created } = await write(queue, patch, options?.meta, true);
      return { config, meta: metaFromStored(record), created };
    },

    async getConfig(queue) {
      checkName('queue', queue);
      const { exists, record } = await ctx.run(scripts.configGet, { queue }, {});
      if (!exists) return null;
      ctx.partitions.learn(queue, recordPartitions(record), true);
      return configFromStored(record, ctx.defaults);
    },

    async describeQueue(queue) {
      checkName('queue', queue);
      const { exists, record } = await ctx.run(scripts.configGet, { queue }, {});
      if (!exists) return null;
      ctx.partitions.learn(queue, recordPartitions(record), true);
      return { config: configFromStored(record, ctx.defaults), meta: metaFromStored(record) };
    },

    async deadLetterSources(queue) {
      checkName('queue', queue);
      const names = (await ctx.run(scripts.queues, {}, {})).names.filter((name) => name !== queue);
      const configs = await Promise.all(
        names.map(async (name) => {
          const { exists, record } = await ctx.run(scripts.configGet, { queue: name }, {});
          return exists ? configFromStored(record, ctx.defaults) : null;
        }),
      );
      return names.filter((_, i) => configs[i]?.deadLetterQueue === queue).sort();
    },

    async listQueues() {
      // A name can outlive its queue briefly (a delete racing a re-creation); the sweep drops it.
      const { names } = await ctx.run(scripts.queues, {}, {});
      return names.sort();
    },

    async deleteQueue(queue) {
      checkName('queue', queue);
      const { partitions, names } = await readGroups(ctx, queue);
      const remove = async (partition: number) =>
        (await ctx.run(scripts.queueDelete, { queue, partition, groups: names }, {})).existed;
      // The other partitions first: partition 0's record, which names them, goes last.
      await Promise.all(range(1, partitions).map(remove));
      const existed = await remove(0);
      await unregister(ctx, queue);
      ctx.partitions.forget(queue);
      ctx.groups.forget(queue);
      return existed;
    },

    async stats(queue) {
      checkName('queue', queue);
      const read = (partition: number, names: boolean) =>
        ctx.run(
          scripts.stats,
          { queue, partition },
          { now: ctx.now(), names: names ? 1 : 0, config: ctx.scriptDefaults },
        );
      const parts = await everyPartition(ctx, queue, async (p) => {
        if (p > 0) return read(p, true);
        // Consumer names are only read when they must be merged over partitions.
        const first = await read(0, (ctx.partitions.get(queue) ?? 1) > 1);
        const lacking = first.groups.some((g) => g.consumers > 0 && g.consumerNames.length === 0);
        return first.partitions > 1 && lacking ? read(0, true) : first;
      });
      const first = (parts[0] as (typeof parts)[number]).result;
      const { partitions } = first;
      const sum = (field: 'length' | 'delayed' | 'deadLetters') =>
        parts.reduce((total, { result }) => total + result[field], 0);
      return {
        name: queue,
        partitions,
        paused: first.paused,
        length: sum('length'),
        delayed: sum('delayed'),
        deadLetters: sum('deadLetters'),
        groups: first.groups.map((g0) => groupStats(g0.name, parts, partitions)),
      } satisfies QueueStats;
    },
  };
}

/** One group's stats: its figures on every partition, added up (a key lives in one partition). */
function groupStats(
  name: string,
  parts: readonly { p: number; result: StatsReply }[],
  partitions: number,
): GroupStats {
  const g0 = (parts[0] as (typeof parts)[number]).result.groups.find((g) => g.name === name);
  if (g0 === undefined) throw new TypeError(`group ${name} is not in partition 0's stats`);
  let pending = 0;
  let lag: number | null = 0;
  let oldest: number | null = null;
  let lastDeliveredId = g0.lastDeliveredId;
  let lastSet = false;
  let keyedWaiting = 0;
  let waitingKeys = 0;
  let rateLimitUsed = 0;
  let rateLimitThrottled = false;
  let throttledKeys = 0;
  let oldestWaitingKey: GroupStats['oldestWaitingKey'] = null;
  const consumerNames = new Set<string>();
  for (const { p, result } of parts) {
    const g = result.groups.find((group) => group.name === name);
    if (g === undefined) continue;
    pending += g.pending;
    keyedWaiting += g.keyedWaiting;
    waitingKeys += g.waitingKeys;
    rateLimitUsed += g.rateUsed;
    rateLimitThrottled ||= g.rateThrottled;
    throttledKeys += g.throttledKeys;
    if (g.oldestKeyId !== '' && (oldestWaitingKey === null || g.oldestKeyAgeMs > oldestWaitingKey.ageMs)) {
      oldestWaitingKey = { groupKey: g.oldestKey, id: encodeId(g.oldestKeyId, p), ageMs: g.oldestKeyAgeMs };
    }
    lag = lag === null || g.lag < 0 ? null : lag + g.lag;
    if (g.oldestPendingAgeMs >= 0) oldest = Math.max(oldest ?? 0, g.oldestPendingAgeMs);
    for (const consumer of g.consumerNames) consumerNames.add(consumer);
    if (g.lastDeliveredId !== '0-0') {
      const id = encodeId(g.lastDeliveredId, p);
      if (!lastSet || compareIds(id, lastDeliveredId) > 0) lastDeliveredId = id;
      lastSet = true;
    }
  }
  return {
    name,
    paused: g0.paused,
    pending,
    lag,
    consumers: partitions === 1 ? g0.consumers : consumerNames.size,
    oldestPendingAgeMs: oldest,
    lastDeliveredId,
    keyedWaiting,
    waitingKeys,
    oldestWaitingKey,
    rateLimitUsed,
    rateLimitThrottled,
    throttledKeys,
  };
}

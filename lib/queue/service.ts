/**
 * The queue: `createQueueService` binds the Lua scripts to a Redis seam, a clock and the config
 * defaults. Every operation validates its input first (a rejected call touches nothing), then
 * runs one script — one atomic Redis round trip — and every script touches one cluster slot.
 * Registration is separate: produce, configure and createGroup report when the queue's config
 * lacks its `registered` marker, and the service then adds the name to the registry and sets the
 * marker (two more calls, once per queue). deleteQueue and sweep also read a queue's group names
 * first and update the registry after, and redrive-all repeats its script until the dead letters
 * are gone.
 */
import type { Clock } from '../clock.ts';
import type { RedisClient, RedisValue } from '../redis/client.ts';
import { decodeDeadLetter, decodeMessage } from './codec.ts';
import { configArgs, configFromStored, DEFAULT_CONFIG } from './config.ts';
import { QueueError, QueueErrorCode } from './errors.ts';
import { createKeySpace } from './keys.ts';
import { createScriptRunner } from './script-runner.ts';
import { scripts } from './scripts.generated.ts';
import type {
  DeadLetter,
  GroupStats,
  Message,
  PendingEntry,
  PendingSummary,
  QueueConfig,
  QueueService,
  QueueStats,
  SweepReport,
} from './types.ts';
import {
  checkBound,
  checkConfigPatch,
  checkId,
  checkIds,
  checkInt,
  checkName,
  DEFAULT_LIMITS,
  encodeMessages,
  type Limits,
} from './validate.ts';

export interface QueueServiceOptions {
  redis: RedisClient;
  clock: Clock;
  /** Config for queues that have not overridden a field (from the environment). */
  defaults?: Partial<QueueConfig>;
  limits?: Partial<Limits>;
  /** Prefix of every key; tests give each run its own. Default `q`. */
  keyPrefix?: string;
}

const DEFAULT_SWEEP_BUDGET = 10_000;
const REDRIVE_BATCH = 1000;

/**
 * @example
 * const queue = createQueueService({ redis: createUpstashClient({ url, token }), clock: systemClock });
 * const [id] = await queue.produce('orders', [{ body: { sku: 42 } }]);
 */
export function createQueueService(options: QueueServiceOptions): QueueService {
  const { clock } = options;
  const defaults: QueueConfig = { ...DEFAULT_CONFIG, ...checkConfigPatch(options.defaults ?? {}) };
  const defaultArgs = configArgs(defaults);
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const space = createKeySpace(options.keyPrefix);
  const run = createScriptRunner(options.redis);
  const now = (): string => String(Math.floor(clock.now()));

  /**
   * Adds the queue to the registry, then marks its config registered; a script reported the marker
   * missing. Best effort: the operation itself succeeded, and a failure (or a crash) between the
   * steps leaves the marker unset, so the queue's next produce/configure/createGroup retries.
   */
  async function register(queue: string, unregistered: RedisValue | undefined): Promise<void> {
    if (Number(unregistered) !== 1) return;
    try {
      await run(scripts.registryAdd, [space.registry], [queue]);
      await run(scripts.queueMark, [space.queue(queue).config], []);
    } catch {
      // Healed by the next call on this queue.
    }
  }

  /** Removes the name from the registry, then clears the marker of a queue re-created meanwhile. */
  async function unregister(queue: string): Promise<void> {
    await run(scripts.registryRemove, [space.registry], [queue]);
    await run(scripts.queueUnmark, [space.queue(queue).config], []);
  }

  async function groupNames(queue: string): Promise<string[]> {
    return (await run(scripts.groups, [space.queue(queue).stream], [])).map(String);
  }

  function messages(items: RedisValue[]): Message[] {
    return items.map((item) => {
      const [id, deliveries, fields] = item as [string, number, RedisValue];
      return decodeMessage(String(id), fields, Number(deliveries));
    });
  }

  function count(value: number | undefined, fallback: number): number {
    return checkInt(value ?? fallback, 'count', 1, limits.maxCount);
  }

  const service: QueueService = {
    async configure(queue, patch) {
      checkName('queue', queue);
      const checked = checkConfigPatch(patch);
      const k = space.queue(queue);
      const args = [queue, ...Object.entries(checked).flatMap(([field, value]) => [field, String(value)])];
      const [unregistered, ...stored] = await run(scripts.configure, [k.config], args);
      await register(queue, unregistered);
      return configFromStored(stored.map(String), defaults);
    },

    async getConfig(queue) {
      checkName('queue', queue);
      const [exists, ...stored] = await run(scripts.configGet, [space.queue(queue).config], []);
      return Number(exists) === 1 ? configFromStored(stored.map(String), defaults) : null;
    },

    async listQueues() {
      // A name can outlive its queue briefly (a delete racing a re-creation); the sweep drops it.
      const [, ...names] = await run(scripts.queues, [space.registry, space.sweepCursor], []);
      return names.map(String).sort();
    },

    async deleteQueue(queue) {
      checkName('queue', queue);
      const k = space.queue(queue);
      const groups = await groupNames(queue);
      const keys = [k.stream, k.dlq, k.delayed, k.delayedData, k.config];
      for (const group of groups) keys.push(k.lease(group), k.groupMeta(group));
      const [existed] = await run(scripts.queueDelete, keys, []);
      await unregister(queue);
      return Number(existed) === 1;
    },

    async produce(queue, input) {
      checkName('queue', queue);
      const encoded = encodeMessages(input, limits);
      const k = space.queue(queue);
      const keys = [k.stream, k.delayed, k.delayedData, k.config];
      const args = [queue, now(), ...defaultArgs, String(encoded.length)];
      for (const message of encoded) {
        let dedupIndex = 0;
        if (message.dedupId !== undefined) {
          keys.push(k.dedup(message.dedupId));
          dedupIndex = keys.length;
        }
        args.push(message.body, message.attributes, String(message.delayMs), String(dedupIndex));
      }
      const [unregistered, ...ids] = await run(scripts.produce, keys, args);
      await register(queue, unregistered);
      return ids.map(String);
    },

    async browse(queue, options) {
      checkName('queue', queue);
      const start = checkBound(options.start ?? '-', 'start');
      const end = checkBound(options.end ?? '+', 'end');
      const n = count(options.count, 100);
      const k = space.queue(queue);
      const entries = await run(scripts.browse, [k.stream, k.config], [start, end, String(n)]);
      return entries.map((entry) => {
        const [id, fields] = entry as [string, RedisValue];
        return decodeMessage(String(id), fields, 0);
      });
    },

    async createGroup(queue, group, start) {
      checkName('queue', queue);
      checkName('group', group);
      if (start !== '0' && start !== '$') checkId(start, 'start');
      const k = space.queue(queue);
      const [created, unregistered] = await run(
        scripts.groupCreate,
        [k.stream, k.config],
        [queue, group, start],
      );
      await register(queue, unregistered);
      return { created: Number(created) === 1 };
    },

    async deleteGroup(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const k = space.queue(queue);
      const [deleted] = await run(
        scripts.groupDelete,
        [k.stream, k.lease(group), k.groupMeta(group)],
        [group],
      );
      return Number(deleted) === 1;
    },

    async consume(queue, group, consumer, n) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      checkInt(n, 'count', 1, limits.maxCount);
      const k = space.queue(queue);
      const [, ...items] = await run(
        scripts.consume,
        [k.stream, k.dlq, k.delayed, k.delayedData, k.config, k.lease(group), k.groupMeta(group)],
        [group, consumer, String(n), now(), ...defaultArgs],
      );
      return messages(items);
    },

    async ack(queue, group, ids) {
      checkName('queue', queue);
      checkName('group', group);
      const checked = checkIds(ids, limits);
      const k = space.queue(queue);
      const [acked] = await run(
        scripts.ack,
        [k.stream, k.lease(group), k.groupMeta(group)],
        [group, ...checked],
      );
      return Number(acked);
    },

    async nack(queue, group, ids, delayMs) {
      checkName('queue', queue);
      checkName('group', group);
      const checked = checkIds(ids, limits);
      checkInt(delayMs, 'delayMs', 0, limits.maxDelayMs);
      const k = space.queue(queue);
      const [requeued] = await run(
        scripts.nack,
        [k.stream, k.lease(group), k.groupMeta(group)],
        [group, now(), String(delayMs), ...checked],
      );
      return Number(requeued);
    },

    async extend(queue, group, consumer, ids) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const checked = checkIds(ids, limits);
      const k = space.queue(queue);
      const [extended, lost] = await run(
        scripts.extend,
        [k.stream, k.config, k.lease(group), k.groupMeta(group)],
        [group, consumer, now(), ...defaultArgs, ...checked],
      );
      return { extended: (extended as RedisValue[]).map(String), lost: (lost as RedisValue[]).map(String) };
    },

    async reclaim(queue, group, consumer, options) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const minIdle = checkInt(options.minIdleMs, 'minIdleMs', 0, Number.MAX_SAFE_INTEGER);
      const n = count(options.count, 100);
      const cursor = checkId(options.cursor ?? '0-0', 'cursor');
      const k = space.queue(queue);
      const [next, , deleted, ...items] = await run(
        scripts.reclaim,
        [k.stream, k.dlq, k.config, k.lease(group), k.groupMeta(group)],
        [group, consumer, now(), String(minIdle), String(n), cursor, ...defaultArgs],
      );
      return {
        cursor: String(next),
        messages: messages(items),
        deleted: (deleted as RedisValue[]).map(String),
      };
    },

    async pendingSummary(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const [pending, minId, maxId, consumers] = await run(
        scripts.pendingSummary,
        [space.queue(queue).stream],
        [group],
      );
      return {
        pending: Number(pending),
        minId: minId === null || minId === undefined ? null : String(minId),
        maxId: maxId === null || maxId === undefined ? null : String(maxId),
        consumers: Array.isArray(consumers)
          ? consumers.map((row) => {
              const [name, n] = row as [string, string];
              return { name: String(name), pending: Number(n) };
            })
          : [],
      } satisfies PendingSummary;
    },

    async pendingRange(queue, group, options) {
      checkName('queue', queue);
      checkName('group', group);
      const start = checkBound(options.start, 'start');
      const end = checkBound(options.end, 'end');
      const n = count(options.count, 100);
      if (options.consumer !== undefined) checkName('consumer', options.consumer);
      const minIdle = checkInt(options.minIdleMs ?? 0, 'minIdleMs', 0, Number.MAX_SAFE_INTEGER);
      const k = space.queue(queue);
      const rows = await run(
        scripts.pendingRange,
        [k.stream, k.config, k.lease(group), k.groupMeta(group)],
        [group, now(), start, end, String(n), options.consumer ?? '', String(minIdle), ...defaultArgs],
      );
      return rows.map((row) => {
        const [id, consumer, idle, deliveries] = row as [string, string, number, number];
        return {
          id: String(id),
          consumer: String(consumer),
          idleMs: Number(idle),
          deliveries: Number(deliveries),
        } satisfies PendingEntry;
      });
    },

    async listDeadLetters(queue, options) {
      checkName('queue', queue);
      const n = count(options.count, 100);
      const start = options.cursor === undefined ? '-' : checkId(options.cursor, 'cursor');
      const entries = await run(scripts.dlqList, [space.queue(queue).dlq], [start, String(n + 1)]);
      const page = entries.slice(0, n).map((entry) => {
        const [id, fields] = entry as [string, RedisValue];
        return decodeDeadLetter(String(id), fields);
      }) satisfies DeadLetter[];
      const following = entries[n] as [string, RedisValue] | undefined;
      return { deadLetters: page, cursor: following === undefined ? null : String(following[0]) };
    },

    async redrive(queue, selection) {
      checkName('queue', queue);
      const k = space.queue(queue);
      if ('all' in selection) {
        if (selection.all !== true) throw new QueueError(QueueErrorCode.invalidArgument, 'all must be true');
        let total = 0;
        for (;;) {
          const [n, more] = await run(scripts.redrive, [k.stream, k.dlq], ['all', String(REDRIVE_BATCH)]);
          total += Number(n);
          if (Number(more) !== 1 || Number(n) === 0) return total;
        }
      }
      const ids = checkIds(selection.ids, limits);
      const [n] = await run(scripts.redrive, [k.stream, k.dlq], ['ids', '0', ...ids]);
      return Number(n);
    },

    async purgeDeadLetters(queue) {
      checkName('queue', queue);
      const [n] = await run(scripts.purge, [space.queue(queue).dlq], []);
      return Number(n);
    },

    async stats(queue) {
      checkName('queue', queue);
      const k = space.queue(queue);
      const [length, delayed, deadLetters, ...groups] = await run(
        scripts.stats,
        [k.stream, k.dlq, k.delayed, k.config],
        [now()],
      );
      return {
        name: queue,
        length: Number(length),
        delayed: Number(delayed),
        deadLetters: Number(deadLetters),
        groups: groups.map((row) => {
          const [name, pending, lag, consumers, age, last] = row as RedisValue[];
          return {
            name: String(name),
            pending: Number(pending),
            lag: Number(lag) < 0 ? null : Number(lag),
            consumers: Number(consumers),
            oldestPendingAgeMs: Number(age) < 0 ? null : Number(age),
            lastDeliveredId: String(last),
          } satisfies GroupStats;
        }),
      } satisfies QueueStats;
    },

    async sweep(options = {}) {
      let budget = checkInt(options.budget ?? DEFAULT_SWEEP_BUDGET, 'budget', 1, 10_000_000);
      const deadline =
        options.timeBudgetMs === undefined
          ? Number.POSITIVE_INFINITY
          : clock.now() + checkInt(options.timeBudgetMs, 'timeBudgetMs', 0, 24 * 60 * 60_000);
      const report: SweepReport = {
        deadLettered: 0,
        promoted: 0,
        deletedReferences: 0,
        consumersRemoved: 0,
        trimmed: 0,
        complete: true,
      };
      const [cursor, ...registered] = await run(scripts.queues, [space.registry, space.sweepCursor], []);
      const names = registered.map(String).sort();
      const first = Math.max(0, names.indexOf(String(cursor)));
      const gone: string[] = [];
      let resumeAt = '';
      for (let i = 0; i < names.length; i++) {
        const queue = names[(first + i) % names.length] as string;
        if (budget <= 0 || clock.now() >= deadline) {
          report.complete = false;
          resumeAt = queue;
          break;
        }
        const groups = await groupNames(queue);
        const k = space.queue(queue);
        const keys = [k.stream, k.dlq, k.delayed, k.delayedData, k.config];
        for (const group of groups) keys.push(k.lease(group), k.groupMeta(group));
        const [dead, promoted, refs, removed, trimmed, work, done, exists] = (
          await run(scripts.sweepQueue, keys, [queue, now(), String(budget), ...defaultArgs, ...groups])
        ).map(Number) as [number, number, number, number, number, number, number, number];
        if (exists !== 1) gone.push(queue);
        report.deadLettered += dead;
        report.promoted += promoted;
        report.deletedReferences += refs;
        report.consumersRemoved += removed;
        report.trimmed += trimmed;
        budget -= work;
        if (done !== 1) {
          report.complete = false;
          resumeAt = queue;
          break;
        }
      }
      // One registry-slot call: where the next sweep starts, and the names of deleted queues.
      await run(scripts.sweepFinish, [space.registry, space.sweepCursor], [resumeAt, ...gone]);
      // A queue re-created since it was found gone re-registers on its next call.
      for (const queue of gone) await run(scripts.queueUnmark, [space.queue(queue).config], []);
      return report;
    },
  };
  return service;
}

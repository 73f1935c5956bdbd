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
import type { RedisClient } from '../redis/client.ts';
import { decodeDeadLetter, decodeMessage } from './codec.ts';
import { configFromStored } from './config.ts';
import { QueueError, QueueErrorCode } from './errors.ts';
import { createKeySpace, type QueueKeys } from './keys.ts';
import {
  CALL_RULES,
  DEFAULT_CONFIG,
  DEFAULT_LIMITS,
  type Limits,
  type QueueConfig,
  U64_MAX,
} from './rules.ts';
import { createScriptRunner } from './script-runner.ts';
import { scripts } from './scripts.generated.ts';
import type { Message, QueueService, QueueStats, SweepReport } from './types.ts';
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

/**
 * @example
 * const queue = createQueueService({ redis: createUpstashClient({ url, token }), clock: systemClock });
 * const [id] = await queue.produce('orders', [{ body: { sku: 42 } }]);
 */
export function createQueueService(options: QueueServiceOptions): QueueService {
  const { clock } = options;
  const defaults: QueueConfig = { ...DEFAULT_CONFIG, ...checkConfigPatch(options.defaults ?? {}) };
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const space = createKeySpace(options.keyPrefix);
  const run = createScriptRunner(options.redis);
  const now = (): number => Math.floor(clock.now());

  /**
   * Adds the queue to the registry, then marks its config registered; a script reported the marker
   * missing. Best effort: the operation itself succeeded, and a failure (or a crash) between the
   * steps leaves the marker unset, so the queue's next produce/configure/createGroup retries.
   */
  async function register(queue: string, unregistered: boolean): Promise<void> {
    if (!unregistered) return;
    try {
      await run(scripts.registryAdd, { registry: space.registry }, { queue });
      await run(scripts.queueMark, { config: space.queue(queue).config }, {});
    } catch {
      // Healed by the next call on this queue.
    }
  }

  /** Removes the name from the registry, then clears the marker of a queue re-created meanwhile. */
  async function unregister(queue: string): Promise<void> {
    await run(scripts.registryRemove, { registry: space.registry }, { queue });
    await run(scripts.queueUnmark, { config: space.queue(queue).config }, {});
  }

  async function groupNames(queue: string): Promise<string[]> {
    return (await run(scripts.groups, { stream: space.queue(queue).stream }, {})).names;
  }

  function delivered(items: readonly { id: string; deliveries: number; fields: string[] }[]): Message[] {
    return items.map(({ id, deliveries, fields }) => decodeMessage(id, fields, deliveries));
  }

  function count(value: number | undefined): number {
    return checkInt(value ?? DEFAULT_PAGE, 'count', CALL_RULES.count);
  }

  const service: QueueService = {
    async configure(queue, patch) {
      checkName('queue', queue);
      const checked = checkConfigPatch(patch);
      const { unregistered, record } = await run(
        scripts.configure,
        { config: space.queue(queue).config },
        { queue, patch: checked },
      );
      await register(queue, unregistered);
      return configFromStored(record, defaults);
    },

    async getConfig(queue) {
      checkName('queue', queue);
      const { exists, record } = await run(scripts.configGet, { config: space.queue(queue).config }, {});
      return exists ? configFromStored(record, defaults) : null;
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
      const k = space.queue(queue);
      const groups = (await groupNames(queue)).map((group) => groupKeys(k, group));
      const { existed } = await run(
        scripts.queueDelete,
        {
          stream: k.stream,
          dlq: k.dlq,
          delayed: k.delayed,
          delayedData: k.delayedData,
          config: k.config,
          groups,
        },
        {},
      );
      await unregister(queue);
      return existed;
    },

    async produce(queue, input) {
      checkName('queue', queue);
      const encoded = encodeMessages(input, limits);
      const k = space.queue(queue);
      const dedup: string[] = [];
      const messages = encoded.map((message) => {
        if (message.dedupId !== undefined) dedup.push(k.dedup(message.dedupId));
        return {
          body: message.body,
          attributes: message.attributes,
          delayMs: message.delayMs,
          dedupKey: message.dedupId === undefined ? 0 : dedup.length,
        };
      });
      const { unregistered, ids } = await run(
        scripts.produce,
        { stream: k.stream, delayed: k.delayed, delayedData: k.delayedData, config: k.config, dedup },
        { queue, now: now(), config: defaults, messages },
      );
      await register(queue, unregistered);
      return ids;
    },

    async browse(queue, options) {
      checkName('queue', queue);
      const from = checkBound(options.start ?? '-', 'start');
      const to = checkBound(options.end ?? '+', 'end');
      const k = space.queue(queue);
      // An empty range still answers QUEUE_NOT_FOUND for a queue that does not exist: read one
      // entry (XRANGE COUNT 0 answers nil) and drop it.
      const empty = emptyRange(from, to);
      const range = empty ? { from: '-', to: '+', count: 1 } : { from, to, count: count(options.count) };
      const { entries } = await run(scripts.browse, { stream: k.stream, config: k.config }, range, {
        subject: { queue },
      });
      return empty ? [] : entries.map(({ id, fields }) => decodeMessage(id, fields, 0));
    },

    async createGroup(queue, group, start) {
      checkName('queue', queue);
      checkName('group', group);
      checkGroupStart(start);
      const k = space.queue(queue);
      const { created, unregistered } = await run(
        scripts.groupCreate,
        { stream: k.stream, config: k.config },
        { queue, group, start },
      );
      await register(queue, unregistered);
      return { created };
    },

    async deleteGroup(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const k = space.queue(queue);
      const { deleted } = await run(
        scripts.groupDelete,
        { stream: k.stream, config: k.config, ...groupKeys(k, group) },
        { group },
        { subject: { queue, group } },
      );
      return deleted;
    },

    async consume(queue, group, consumer, n) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      checkInt(n, 'count', CALL_RULES.count);
      const k = space.queue(queue);
      const { messages } = await run(
        scripts.consume,
        {
          stream: k.stream,
          dlq: k.dlq,
          delayed: k.delayed,
          delayedData: k.delayedData,
          config: k.config,
          ...groupKeys(k, group),
        },
        { group, consumer, count: n, now: now(), config: defaults },
        { subject: { queue, group } },
      );
      return delivered(messages);
    },

    async ack(queue, group, ids) {
      checkName('queue', queue);
      checkName('group', group);
      const checked = checkIds(ids);
      const k = space.queue(queue);
      const { acked } = await run(
        scripts.ack,
        { stream: k.stream, config: k.config, ...groupKeys(k, group) },
        { group, ids: checked },
        { subject: { queue, group } },
      );
      return acked;
    },

    async nack(queue, group, ids, delayMs) {
      checkName('queue', queue);
      checkName('group', group);
      const checked = checkIds(ids);
      checkInt(delayMs, 'delayMs', CALL_RULES.delayMs);
      const k = space.queue(queue);
      const { requeued } = await run(
        scripts.nack,
        { stream: k.stream, config: k.config, ...groupKeys(k, group) },
        { group, now: now(), delayMs, ids: checked },
        { subject: { queue, group } },
      );
      return requeued;
    },

    async extend(queue, group, consumer, ids) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const checked = checkIds(ids);
      const k = space.queue(queue);
      return run(
        scripts.extend,
        { stream: k.stream, config: k.config, ...groupKeys(k, group) },
        { group, consumer, now: now(), config: defaults, ids: checked },
        { subject: { queue, group } },
      );
    },

    async reclaim(queue, group, consumer, options) {
      checkName('queue', queue);
      checkName('group', group);
      checkName('consumer', consumer);
      const minIdleMs = checkInt(options.minIdleMs, 'minIdleMs', CALL_RULES.minIdleMs);
      const n = count(options.count);
      const cursor = checkId(options.cursor ?? '0-0', 'cursor');
      const k = space.queue(queue);
      const reply = await run(
        scripts.reclaim,
        { stream: k.stream, dlq: k.dlq, config: k.config, ...groupKeys(k, group) },
        { group, consumer, now: now(), minIdleMs, count: n, cursor, config: defaults },
        { subject: { queue, group } },
      );
      return { cursor: reply.cursor, messages: delivered(reply.messages), deleted: reply.deleted };
    },

    async pendingSummary(queue, group) {
      checkName('queue', queue);
      checkName('group', group);
      const k = space.queue(queue);
      const reply = await run(
        scripts.pendingSummary,
        { stream: k.stream, config: k.config },
        { group },
        { subject: { queue, group } },
      );
      return {
        pending: reply.pending,
        minId: reply.minId,
        maxId: reply.maxId,
        consumers: reply.consumers ?? [],
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
      const k = space.queue(queue);
      const { entries } = await run(
        scripts.pendingRange,
        { stream: k.stream, config: k.config, ...groupKeys(k, group) },
        {
          group,
          now: now(),
          // An empty range still answers GROUP_NOT_FOUND for a group that does not exist.
          ...(emptyRange(from, to) ? { from: '-', to: '+', count: 0 } : { from, to, count: n }),
          consumer: options.consumer ?? '',
          minIdleMs,
          config: defaults,
        },
        { subject: { queue, group } },
      );
      return entries;
    },

    async listDeadLetters(queue, options) {
      checkName('queue', queue);
      const n = count(options.count);
      const from = options.cursor === undefined ? '-' : checkId(options.cursor, 'cursor');
      const { entries } = await run(scripts.dlqList, { dlq: space.queue(queue).dlq }, { from, count: n + 1 });
      const page = entries.slice(0, n).map(({ id, fields }) => decodeDeadLetter(id, fields));
      return { deadLetters: page, cursor: entries[n]?.id ?? null };
    },

    async redrive(queue, selection) {
      checkName('queue', queue);
      const k = space.queue(queue);
      const keys = { stream: k.stream, dlq: k.dlq };
      if ('all' in selection) {
        if (selection.all !== true) throw new QueueError(QueueErrorCode.invalidArgument, 'all must be true');
        let total = 0;
        for (;;) {
          const { redriven, more } = await run(scripts.redrive, keys, {
            mode: 'all',
            limit: REDRIVE_BATCH,
            ids: [],
          });
          total += redriven;
          if (!more || redriven === 0) return total;
        }
      }
      const ids = checkIds(selection.ids);
      const { redriven } = await run(scripts.redrive, keys, { mode: 'ids', limit: 0, ids });
      return redriven;
    },

    async purgeDeadLetters(queue) {
      checkName('queue', queue);
      return (await run(scripts.purge, { dlq: space.queue(queue).dlq }, {})).purged;
    },

    async stats(queue) {
      checkName('queue', queue);
      const k = space.queue(queue);
      const reply = await run(
        scripts.stats,
        { stream: k.stream, dlq: k.dlq, delayed: k.delayed, config: k.config },
        { now: now() },
        { subject: { queue } },
      );
      return {
        name: queue,
        length: reply.length,
        delayed: reply.delayed,
        deadLetters: reply.deadLetters,
        groups: reply.groups.map((group) => ({
          name: group.name,
          pending: group.pending,
          lag: group.lag < 0 ? null : group.lag,
          consumers: group.consumers,
          oldestPendingAgeMs: group.oldestPendingAgeMs < 0 ? null : group.oldestPendingAgeMs,
          lastDeliveredId: group.lastDeliveredId,
        })),
      } satisfies QueueStats;
    },

    async sweep(options = {}) {
      let budget = checkInt(options.budget ?? DEFAULT_SWEEP_BUDGET, 'budget', CALL_RULES.sweepBudget);
      const deadline =
        options.timeBudgetMs === undefined
          ? Number.POSITIVE_INFINITY
          : clock.now() + checkInt(options.timeBudgetMs, 'timeBudgetMs', CALL_RULES.sweepTimeBudgetMs);
      const report: SweepReport = {
        deadLettered: 0,
        promoted: 0,
        deletedReferences: 0,
        consumersRemoved: 0,
        trimmed: 0,
        complete: true,
      };
      const registry = { registry: space.registry, sweepCursor: space.sweepCursor };
      const { cursor, names: registered } = await run(scripts.queues, registry, {});
      const names = registered.sort();
      const first = Math.max(0, names.indexOf(cursor));
      const gone: string[] = [];
      let resumeAt = '';
      for (let i = 0; i < names.length; i++) {
        const queue = names[(first + i) % names.length] as string;
        if (budget <= 0 || clock.now() >= deadline) {
          report.complete = false;
          resumeAt = queue;
          break;
        }
        const groupNamesOf = await groupNames(queue);
        const k = space.queue(queue);
        const step = await run(
          scripts.sweepQueue,
          {
            stream: k.stream,
            dlq: k.dlq,
            delayed: k.delayed,
            delayedData: k.delayedData,
            config: k.config,
            groups: groupNamesOf.map((group) => groupKeys(k, group)),
          },
          { queue, now: now(), budget, config: defaults, groupNames: groupNamesOf },
        );
        if (!step.exists) gone.push(queue);
        report.deadLettered += step.deadLettered;
        report.promoted += step.promoted;
        report.deletedReferences += step.deletedReferences;
        report.consumersRemoved += step.consumersRemoved;
        report.trimmed += step.trimmed;
        budget -= step.work;
        if (!step.done) {
          report.complete = false;
          resumeAt = queue;
          break;
        }
      }
      // One registry-slot call: where the next sweep starts, and the names of deleted queues.
      await run(scripts.sweepFinish, registry, { resumeAt, gone });
      // A queue re-created since it was found gone re-registers on its next call.
      for (const queue of gone) await run(scripts.queueUnmark, { config: space.queue(queue).config }, {});
      return report;
    },

    async ping() {
      await run(scripts.ping, {}, {});
    },
  };
  return service;
}

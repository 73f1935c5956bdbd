/**
 * An in-memory stand-in for `QueueService`, small enough to trust by reading, so the route tests
 * exercise the HTTP layer alone. It follows the contract's shapes and error codes; it is not a
 * model of the real scripts' every rule. `failNext` injects an error into the next call.
 */
import type { Clock } from '../../../lib/clock.ts';
import { QueueError, QueueErrorCode } from '../../../lib/queue/errors.ts';
import type {
  DeadLetter,
  Message,
  MessageInput,
  QueueConfig,
  QueueService,
  QueueStats,
  SweepReport,
} from '../../../lib/queue/types.ts';

interface Entry {
  id: string;
  body: unknown;
  attributes: Record<string, string>;
  enqueuedAt: number;
}

interface Pending {
  consumer: string;
  deliveries: number;
  deliveredAt: number;
}

interface Group {
  /** How many entries of the stream the group has been handed. */
  cursor: number;
  pending: Map<string, Pending>;
  consumers: Set<string>;
  /** Delivery counts survive acks so a redelivery keeps counting. */
  deliveries: Map<string, number>;
}

interface FakeQueue {
  config: QueueConfig;
  entries: Entry[];
  groups: Map<string, Group>;
  dlq: DeadLetter[];
}

export const defaultConfig: QueueConfig = {
  visibilityTimeoutMs: 30_000,
  maxDeliveries: 5,
  dedupWindowMs: 300_000,
  retentionMs: 0,
  consumerIdleMs: 3_600_000,
  maxInFlightPerConsumer: 1000,
};

export interface FakeQueueService extends QueueService {
  /** The next call of any method throws `error` instead of running. */
  failNext(error: Error): void;
  /** Everything the fake holds, as text: equal snapshots mean no state changed. */
  snapshot(): string;
  /** Method names in call order. */
  readonly calls: string[];
}

export function createFakeQueue(clock: Clock): FakeQueueService {
  const queues = new Map<string, FakeQueue>();
  const calls: string[] = [];
  let pendingFailure: Error | undefined;
  let lastMs = 0;
  let seq = 0;

  function nextId(): string {
    const now = clock.now();
    if (now > lastMs) {
      lastMs = now;
      seq = 0;
    } else seq += 1;
    return `${lastMs}-${seq}`;
  }

  function enter(method: string): void {
    calls.push(method);
    if (pendingFailure !== undefined) {
      const error = pendingFailure;
      pendingFailure = undefined;
      throw error;
    }
  }

  function getQueue(name: string): FakeQueue {
    const queue = queues.get(name);
    if (queue === undefined)
      throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${name}" does not exist`);
    return queue;
  }

  function getGroup(name: string, group: string): { queue: FakeQueue; group: Group } {
    const queue = getQueue(name);
    const found = queue.groups.get(group);
    if (found === undefined) {
      throw new QueueError(
        QueueErrorCode.groupNotFound,
        `Group "${group}" of queue "${name}" does not exist`,
      );
    }
    return { queue, group: found };
  }

  function register(name: string): FakeQueue {
    let queue = queues.get(name);
    if (queue === undefined) {
      queue = { config: { ...defaultConfig }, entries: [], groups: new Map(), dlq: [] };
      queues.set(name, queue);
    }
    return queue;
  }

  function toMessage(entry: Entry, deliveries: number): Message {
    return {
      id: entry.id,
      body: entry.body,
      attributes: entry.attributes,
      deliveries,
      enqueuedAt: entry.enqueuedAt,
    };
  }

  function deliver(queue: FakeQueue, group: Group, consumer: string, id: string): Message | undefined {
    const entry = queue.entries.find((e) => e.id === id);
    if (entry === undefined) return undefined;
    const deliveries = (group.deliveries.get(id) ?? 0) + 1;
    group.deliveries.set(id, deliveries);
    group.pending.set(id, { consumer, deliveries, deliveredAt: clock.now() });
    group.consumers.add(consumer);
    return toMessage(entry, deliveries);
  }

  const service: FakeQueueService = {
    calls,
    failNext(error) {
      pendingFailure = error;
    },
    snapshot() {
      return JSON.stringify(
        [...queues].map(([name, q]) => [
          name,
          q.config,
          q.entries,
          q.dlq,
          [...q.groups].map(([g, group]) => [g, group.cursor, [...group.pending], [...group.consumers]]),
        ]),
      );
    },

    async configure(name, patch) {
      enter('configure');
      const queue = register(name);
      queue.config = { ...queue.config, ...patch };
      return queue.config;
    },
    async getConfig(name) {
      enter('getConfig');
      return queues.get(name)?.config ?? null;
    },
    async listQueues() {
      enter('listQueues');
      return [...queues.keys()].sort();
    },
    async deleteQueue(name) {
      enter('deleteQueue');
      return queues.delete(name);
    },
    async produce(name, messages: MessageInput[]) {
      enter('produce');
      const queue = register(name);
      return messages.map((message) => {
        const entry = {
          id: nextId(),
          body: message.body,
          attributes: message.attributes ?? {},
          enqueuedAt: clock.now(),
        };
        queue.entries.push(entry);
        return entry.id;
      });
    },
    async browse(name, { count }) {
      enter('browse');
      return getQueue(name)
        .entries.slice(0, count ?? 100)
        .map((entry) => toMessage(entry, 0));
    },
    async createGroup(name, group, start) {
      enter('createGroup');
      const queue = getQueue(name);
      if (queue.groups.has(group)) return { created: false };
      const cursor = start === '$' ? queue.entries.length : 0;
      queue.groups.set(group, { cursor, pending: new Map(), consumers: new Set(), deliveries: new Map() });
      return { created: true };
    },
    async deleteGroup(name, group) {
      enter('deleteGroup');
      return getQueue(name).groups.delete(group);
    },
    async consume(name, groupName, consumer, count) {
      enter('consume');
      const { queue, group } = getGroup(name, groupName);
      const out: Message[] = [];
      for (const [id, p] of group.pending) {
        if (out.length >= count) break;
        if (clock.now() - p.deliveredAt >= queue.config.visibilityTimeoutMs) {
          const message = deliver(queue, group, consumer, id);
          if (message !== undefined) out.push(message);
        }
      }
      while (out.length < count && group.cursor < queue.entries.length) {
        const entry = queue.entries[group.cursor++]!;
        const message = deliver(queue, group, consumer, entry.id);
        if (message !== undefined) out.push(message);
      }
      group.consumers.add(consumer);
      return out;
    },
    async ack(name, groupName, ids) {
      enter('ack');
      const { group } = getGroup(name, groupName);
      return ids.filter((id) => group.pending.delete(id)).length;
    },
    async nack(name, groupName, ids, delayMs) {
      enter('nack');
      const { queue, group } = getGroup(name, groupName);
      let requeued = 0;
      for (const id of ids) {
        const p = group.pending.get(id);
        if (p === undefined) continue;
        // Due again once the visibility timeout has passed since this moment plus the delay.
        p.deliveredAt = clock.now() - queue.config.visibilityTimeoutMs + delayMs;
        requeued += 1;
      }
      return requeued;
    },
    async extend(name, groupName, consumer, ids) {
      enter('extend');
      const { group } = getGroup(name, groupName);
      const extended: string[] = [];
      const lost: string[] = [];
      for (const id of ids) {
        const p = group.pending.get(id);
        if (p !== undefined && p.consumer === consumer) {
          p.deliveredAt = clock.now();
          extended.push(id);
        } else lost.push(id);
      }
      return { extended, lost };
    },
    async reclaim(name, groupName, consumer, { minIdleMs, count }) {
      enter('reclaim');
      const { queue, group } = getGroup(name, groupName);
      const messages: Message[] = [];
      for (const [id, p] of group.pending) {
        if (messages.length >= (count ?? 100)) break;
        if (clock.now() - p.deliveredAt < minIdleMs) continue;
        const message = deliver(queue, group, consumer, id);
        if (message !== undefined) messages.push(message);
      }
      return { cursor: '0-0', messages, deleted: [] };
    },
    async pendingSummary(name, groupName) {
      enter('pendingSummary');
      const { group } = getGroup(name, groupName);
      const ids = [...group.pending.keys()];
      const byConsumer = new Map<string, number>();
      for (const p of group.pending.values())
        byConsumer.set(p.consumer, (byConsumer.get(p.consumer) ?? 0) + 1);
      return {
        pending: ids.length,
        minId: ids[0] ?? null,
        maxId: ids.at(-1) ?? null,
        consumers: [...byConsumer].map(([consumerName, pending]) => ({ name: consumerName, pending })),
      };
    },
    async pendingRange(name, groupName, { count, consumer, minIdleMs }) {
      enter('pendingRange');
      const { group } = getGroup(name, groupName);
      return [...group.pending]
        .filter(([, p]) => consumer === undefined || p.consumer === consumer)
        .map(([id, p]) => ({
          id,
          consumer: p.consumer,
          idleMs: clock.now() - p.deliveredAt,
          deliveries: p.deliveries,
        }))
        .filter((entry) => minIdleMs === undefined || entry.idleMs >= minIdleMs)
        .slice(0, count);
    },
    async listDeadLetters(name, { count }) {
      enter('listDeadLetters');
      return { deadLetters: getQueue(name).dlq.slice(0, count ?? 100), cursor: null };
    },
    async redrive(name, selection) {
      enter('redrive');
      const queue = getQueue(name);
      const chosen = queue.dlq.filter((d) => 'all' in selection || selection.ids.includes(d.id));
      queue.dlq = queue.dlq.filter((d) => !chosen.includes(d));
      for (const d of chosen) {
        queue.entries.push({ id: nextId(), body: d.body, attributes: d.attributes, enqueuedAt: clock.now() });
      }
      return chosen.length;
    },
    async purgeDeadLetters(name) {
      enter('purgeDeadLetters');
      const queue = getQueue(name);
      const purged = queue.dlq.length;
      queue.dlq = [];
      return purged;
    },
    async stats(name): Promise<QueueStats> {
      enter('stats');
      const queue = getQueue(name);
      return {
        name,
        length: queue.entries.length,
        delayed: 0,
        deadLetters: queue.dlq.length,
        groups: [...queue.groups].map(([groupName, group]) => {
          const ages = [...group.pending.values()].map((p) => clock.now() - p.deliveredAt);
          return {
            name: groupName,
            pending: group.pending.size,
            lag: queue.entries.length - group.cursor,
            consumers: group.consumers.size,
            oldestPendingAgeMs: ages.length === 0 ? null : Math.max(...ages),
            lastDeliveredId: queue.entries[group.cursor - 1]?.id ?? '0-0',
          };
        }),
      };
    },
    async sweep(): Promise<SweepReport> {
      enter('sweep');
      let deadLettered = 0;
      for (const queue of queues.values()) {
        for (const [groupName, group] of queue.groups) {
          for (const [id, p] of group.pending) {
            const idle = clock.now() - p.deliveredAt;
            if (idle < queue.config.visibilityTimeoutMs || p.deliveries < queue.config.maxDeliveries)
              continue;
            const entry = queue.entries.find((e) => e.id === id);
            group.pending.delete(id);
            if (entry === undefined) continue;
            queue.dlq.push({
              id: nextId(),
              body: entry.body,
              attributes: entry.attributes,
              enqueuedAt: entry.enqueuedAt,
              deadLetteredFrom: id,
              group: groupName,
              deliveries: p.deliveries,
              reason: 'maxDeliveries',
              deadLetteredAt: clock.now(),
            });
            deadLettered += 1;
          }
        }
      }
      return {
        deadLettered,
        promoted: 0,
        deletedReferences: 0,
        consumersRemoved: 0,
        trimmed: 0,
        complete: true,
      };
    },
  };
  return service;
}

/**
 * Every Redis key the queue uses, and nothing else formats one. Each partition of a queue is a
 * full set of its keys under one hash tag: `{<queue>}` for partition 0 (exactly the keys of a
 * queue from before partitions existed) and `{<queue>#<p>}` for partition p ≥ 1 (`#` cannot occur
 * in a name). The three global keys (the registry, the sweep cursor and the sweep's revisit times)
 * share the hash tag `{registry}`. So every script touches one cluster slot, and the partitions of
 * one queue hash to different slots, spread over a cluster's shards (see docs/queue-design.md).
 *
 * A key has one name, the same here, in the scripts' `KEYS:` headers, in their Lua (`keys.<name>`,
 * a group's `g.<name>`) and in the docs; the stored key names below are data and never change.
 * A script call names what it is about (a `KeyScope`); `scriptKeys` picks its KEYS by the names
 * its header lists, so no caller writes a list of keys.
 */
import type { ParamShape, VariadicShape } from './script-binding.ts';

/** The global keys (hash tag `{registry}`). */
export interface RegistryKeys {
  /** The set of queue names, for listQueues and the sweep. */
  registry: string;
  /** The queue where the last sweep stopped. */
  sweepCursor: string;
  /**
   * Queue → when a scheduled sweep should visit it again (ms): its revisit time once a sweep found
   * nothing to do there; an idle sweep reads only this and the registry.
   */
  sweepDue: string;
}

/** The keys of one partition of a queue that are not a group's. */
export interface PartitionKeys {
  /** The stream of messages; consumer groups live on it. */
  stream: string;
  /** Dead letters: a stream of copies with `dlq.*` fields saying where they came from. */
  dlq: string;
  /** Hash: `<message id>|<group>` -> the id of its dead letter (written by dead-lettering; lookup reads it). */
  dlqIndex: string;
  /** Hash (partition 0): schedule name -> its spec (JSON), `<name>:last` -> the last occurrence fired. */
  schedules: string;
  /** Delayed messages: token → due time (ms). */
  delayed: string;
  /** Delayed messages' fields, `<token>:b|a|t|x|g`. */
  delayedData: string;
  /** Config overrides, the epoch, the partition count, markers and the delayed-token counter. */
  config: string;
  /**
   * Wake-ups for waiting consumers: a few tiny entries appended by what makes a message
   * deliverable without appending to `stream` (nack, a new earliest delayed message); long polls
   * block reading it and `stream` (lib/queue/watch.ts). Expires a day after its last entry.
   */
  wake: string;
  /** Cancelled messages (cancelMessage), for lookup: id → when it was cancelled (ms), the latest 10,000. */
  cancelled: string;
  /** The fields of the cancelled messages in `cancelled`: id → their JSON. */
  cancelledData: string;
}

/** One consumer group's keys in one partition. */
export interface GroupKeys {
  /** Lease index: message id → time its lease expires (service clock, ms). */
  lease: string;
  /** Record: consumers' last-seen times and held counts, nack markers, sweep cursors. */
  meta: string;
  /** Round robin (sorted set): group key → its turn, for keys that may deliver now. */
  turns: string;
  /** Sorted set: group key → the time of its first waiting message, for keys with some. */
  heads: string;
  /**
   * Hash of the key lines (ordered message groups): each key's line of unfinished messages as a
   * doubly linked list with its head, tail, first waiting message and in-flight count, the key of
   * each in-flight message, and counters (stored as `…:g:<group>:keys`). See docs/queue-design.md.
   */
  keyState: string;
  /**
   * Hash: the rate limits' windows (rateLimit, keyRateLimit): the group's and each key's
   * deliveries in the current window and the keys held back until it ends
   * (include/rate-limit.lua). Expires two days after its last window began.
   */
  rate: string;
}

export interface QueueKeys extends PartitionKeys {
  group(name: string): GroupKeys;
  /** The record of a dedupId: `epoch|first id|expiresAt`, PX the dedup window. */
  dedup(dedupId: string): string;
  /**
   * The record of a consume's attemptId (`<lease end> <id> <deliveries> …`, PX until the lease
   * end): what that receive attempt of `consumer` in `group` leased, so a retry answers it again.
   * Names cannot hold `:`, so consumer and attempt id cannot run into each other.
   */
  attempt(group: string, consumer: string, attemptId: string): string;
}

export interface KeySpace extends RegistryKeys {
  /** The keys of one partition of a queue (partition 0 by default). */
  queue(name: string, partition?: number): QueueKeys;
}

export const REGISTRY_KEY_NAMES = ['registry', 'sweepCursor', 'sweepDue'] as const;
export const PARTITION_KEY_NAMES = [
  'stream',
  'dlq',
  'dlqIndex',
  'schedules',
  'delayed',
  'delayedData',
  'config',
  'wake',
  'cancelled',
  'cancelledData',
] as const;
export const GROUP_KEY_NAMES = ['lease', 'meta', 'turns', 'heads', 'keyState', 'rate'] as const;
/**
 * The variadic parts a script's KEYS may end with: every group's keys, dedup records, the record
 * of a receive attempt (none or one), and `from`: the keys of the group an ack-and-produce settles
 * in (another queue's partition, or the same; one item of partition and group keys).
 */
export const KEY_LIST_NAMES = ['groups', 'dedup', 'attempt', 'from'] as const;

/**
 * @example
 * createKeySpace('q').queue('orders').stream // 'q:{orders}:stream'
 * createKeySpace('q').queue('orders', 3).group('billing').lease // 'q:{orders#3}:g:billing:lease'
 */
export function createKeySpace(prefix = 'q'): KeySpace {
  return {
    registry: `${prefix}:{registry}:queues`,
    sweepCursor: `${prefix}:{registry}:sweep-cursor`,
    sweepDue: `${prefix}:{registry}:sweep-due`,
    queue(name, partition = 0) {
      const base = partition === 0 ? `${prefix}:{${name}}` : `${prefix}:{${name}#${partition}}`;
      return {
        stream: `${base}:stream`,
        dlq: `${base}:dlq`,
        dlqIndex: `${base}:dlq-index`,
        schedules: `${base}:schedules`,
        delayed: `${base}:delayed`,
        delayedData: `${base}:delayed-data`,
        config: `${base}:config`,
        wake: `${base}:wake`,
        cancelled: `${base}:cancelled`,
        cancelledData: `${base}:cancelled-data`,
        group: (group) => ({
          lease: `${base}:g:${group}:lease`,
          meta: `${base}:g:${group}:meta`,
          turns: `${base}:g:${group}:turns`,
          heads: `${base}:g:${group}:heads`,
          keyState: `${base}:g:${group}:keys`,
          rate: `${base}:g:${group}:rate`,
        }),
        dedup: (dedupId) => `${base}:dedup:${dedupId}`,
        attempt: (group, consumer, attemptId) => `${base}:g:${group}:attempt:${consumer}:${attemptId}`,
      };
    },
  };
}

/**
 * What a script call is about. A script's KEYS come from it by the names in its header: the
 * registry's keys need nothing; a partition's keys the queue (partition 0 unless named); a group's
 * keys the group; `...groups` the groups, in order; `...dedup` the dedupIds; `...attempt` the
 * receive attempt, when there is one. The runner also sends
 * the ARGV parameters named `queue`, `group` and `groups` from here, so a script's keys and the
 * names it is told always agree.
 */
export interface KeyScope {
  queue?: string;
  partition?: number;
  group?: string;
  groups?: readonly string[];
  dedup?: readonly string[];
  /** `...attempt`: the receive attempt of a consume (of `group`), when it names one. */
  attempt?: { consumer: string; id: string };
  /**
   * `...from`: the group whose messages an ack-and-produce acks, in its queue's partition (the
   * call's own queue is the one it produces into).
   */
  from?: { queue: string; partition?: number; group: string };
}

const registryNames = new Set<string>(REGISTRY_KEY_NAMES);
const partitionNames = new Set<string>(PARTITION_KEY_NAMES);
const groupNames = new Set<string>(GROUP_KEY_NAMES);

function need<T>(value: T | undefined, what: string, key: string): T {
  if (value === undefined) throw new TypeError(`key ${key} needs the call's ${what}`);
  return value;
}

/**
 * The keys of one call's scope, each family made once per call: a script names up to a dozen keys
 * of one partition, and `space.queue` formats all of that partition's keys each time it is asked.
 */
class ScopeKeys {
  private partitionKeys: QueueKeys | undefined;
  private groupKeys: GroupKeys | undefined;

  constructor(
    readonly space: KeySpace,
    readonly scope: KeyScope,
  ) {}

  partition(key: string): QueueKeys {
    this.partitionKeys ??= this.space.queue(need(this.scope.queue, 'queue', key), this.scope.partition ?? 0);
    return this.partitionKeys;
  }

  group(key: string): GroupKeys {
    this.groupKeys ??= this.partition(key).group(need(this.scope.group, 'group', key));
    return this.groupKeys;
  }

  named(name: string): string {
    if (registryNames.has(name)) return this.space[name as keyof RegistryKeys];
    if (partitionNames.has(name)) return this.partition(name)[name as keyof PartitionKeys];
    if (groupNames.has(name)) return this.group(name)[name as keyof GroupKeys];
    throw new TypeError(`no key is named ${name}`);
  }
}

function listKeys(keys: ScopeKeys, [name, kind]: VariadicShape, out: string[]): void {
  const { space, scope } = keys;
  if (name === 'dedup' && kind === 'string') {
    const k = keys.partition(name);
    for (const id of need(scope.dedup, 'dedup', name)) out.push(k.dedup(id));
    return;
  }
  if (name === 'attempt' && kind === 'string') {
    if (scope.attempt === undefined) return;
    const { consumer, id } = scope.attempt;
    out.push(keys.partition(name).attempt(need(scope.group, 'group', name), consumer, id));
    return;
  }
  if (name === 'from' && typeof kind !== 'string') {
    const from = need(scope.from, 'from', name);
    const scoped = new ScopeKeys(space, {
      queue: from.queue,
      partition: from.partition ?? 0,
      group: from.group,
    });
    for (const [field] of kind) out.push(scoped.named(field));
    return;
  }
  if (name === 'groups' && typeof kind !== 'string') {
    const k = keys.partition(name);
    for (const group of need(scope.groups, 'groups', name)) {
      const groupKeys = k.group(group);
      for (const [field] of kind) {
        if (!groupNames.has(field)) throw new TypeError(`no group key is named ${field}`);
        out.push(groupKeys[field as keyof GroupKeys]);
      }
    }
    return;
  }
  throw new TypeError(`no list of keys is named ${name}`);
}

/**
 * The KEYS of a call: each name of the script's `KEYS:` header (`shape`) resolved in `scope`.
 * @example
 * scriptKeys(space, scripts.ack.keys, { queue: 'orders', group: 'billing' })
 * // ['q:{orders}:stream', 'q:{orders}:config', 'q:{orders}:g:billing:lease', …]
 */
export function scriptKeys(space: KeySpace, shape: ParamShape, scope: KeyScope): string[] {
  const keys = new ScopeKeys(space, scope);
  const out: string[] = [];
  for (const [name] of shape.fixed) out.push(keys.named(name));
  if (shape.lists !== undefined) for (const part of shape.lists) listKeys(keys, part, out);
  if (shape.rest !== undefined) listKeys(keys, shape.rest, out);
  return out;
}

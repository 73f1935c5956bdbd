/**
 * Every Redis key the queue uses, and nothing else formats one. Each partition of a queue is a
 * full set of its keys under one hash tag: `{<queue>}` for partition 0 (exactly the keys of a
 * queue from before partitions existed) and `{<queue>#<p>}` for partition p ≥ 1 (`#` cannot occur
 * in a name). The two global keys (the registry and the sweep cursor) share the hash tag
 * `{registry}`. So every script touches one cluster slot, and the partitions of one queue hash to
 * different slots, spread over a cluster's shards (see docs/queue-design.md).
 */

export interface QueueKeys {
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
  /** Delayed messages' fields, `<token>:b|a|t`. */
  delayedData: string;
  /** Config overrides, the epoch and the delayed-token counter. */
  config: string;
  /**
   * Wake-ups for waiting consumers: a few tiny entries appended by what makes a message
   * deliverable without appending to `stream` (nack, a new earliest delayed message); long polls
   * block reading it and `stream` (lib/queue/watch.ts). Expires a day after its last entry.
   */
  wake: string;
  /** Per-group lease index: message id → time its lease expires (service clock, ms). */
  lease(group: string): string;
  /** Per-group record: consumers' last-seen times, nack markers, sweep cursors. */
  groupMeta(group: string): string;
  /** Per-group round robin (sorted set): group key → its turn, for keys that may deliver now. */
  turns(group: string): string;
  /** Per-group sorted set: group key → the time of its first waiting message, for keys with some. */
  heads(group: string): string;
  /**
   * Per-group hash of the key lines (ordered message groups): each key's line of unfinished
   * messages as a doubly linked list with its head, tail, first waiting message and in-flight
   * count, the key of each in-flight message, and counters. See docs/queue-design.md.
   */
  keyState(group: string): string;
  dedup(dedupId: string): string;
}

export interface KeySpace {
  /** The keys of one partition of a queue (partition 0 by default). */
  queue(name: string, partition?: number): QueueKeys;
  /** The set of queue names, for listQueues and the sweep (hash tag `{registry}`). */
  registry: string;
  /** The queue where the last sweep stopped (hash tag `{registry}`, the registry's slot). */
  sweepCursor: string;
  /**
   * Queue → when a scheduled sweep should visit it again (ms): its revisit time once a sweep found
   * nothing to do there (hash tag `{registry}`); an idle sweep reads only this and the registry.
   */
  sweepDue: string;
}

/**
 * @example
 * createKeySpace('q').queue('orders').stream // 'q:{orders}:stream'
 * createKeySpace('q').queue('orders', 3).stream // 'q:{orders#3}:stream'
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
        lease: (group) => `${base}:g:${group}:lease`,
        groupMeta: (group) => `${base}:g:${group}:meta`,
        turns: (group) => `${base}:g:${group}:turns`,
        heads: (group) => `${base}:g:${group}:heads`,
        keyState: (group) => `${base}:g:${group}:keys`,
        dedup: (dedupId) => `${base}:dedup:${dedupId}`,
      };
    },
  };
}

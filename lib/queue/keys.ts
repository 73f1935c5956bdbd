/**
 * Every Redis key the queue uses, and nothing else formats one. A queue's keys share the hash tag
 * `{<queue>}`, and the two global keys (the registry and the sweep cursor) share the hash tag
 * `{registry}`, so every script touches one cluster slot (see docs/queue-design.md).
 */

export interface QueueKeys {
  /** The stream of messages; consumer groups live on it. */
  stream: string;
  /** Dead letters: a stream of copies with `dlq.*` fields saying where they came from. */
  dlq: string;
  /** Delayed messages: token → due time (ms). */
  delayed: string;
  /** Delayed messages' fields, `<token>:b|a|t`. */
  delayedData: string;
  /** Config overrides, the epoch and the delayed-token counter. */
  config: string;
  /** Per-group lease index: message id → time its lease expires (service clock, ms). */
  lease(group: string): string;
  /** Per-group record: consumers' last-seen times, nack markers, sweep cursors. */
  groupMeta(group: string): string;
  dedup(dedupId: string): string;
}

export interface KeySpace {
  queue(name: string): QueueKeys;
  /** The set of queue names, for listQueues and the sweep (hash tag `{registry}`). */
  registry: string;
  /** The queue where the last sweep stopped (hash tag `{registry}`, the registry's slot). */
  sweepCursor: string;
}

/**
 * @example
 * createKeySpace('q').queue('orders').stream // 'q:{orders}:stream'
 */
export function createKeySpace(prefix = 'q'): KeySpace {
  return {
    registry: `${prefix}:{registry}:queues`,
    sweepCursor: `${prefix}:{registry}:sweep-cursor`,
    queue(name) {
      const base = `${prefix}:{${name}}`;
      return {
        stream: `${base}:stream`,
        dlq: `${base}:dlq`,
        delayed: `${base}:delayed`,
        delayedData: `${base}:delayed-data`,
        config: `${base}:config`,
        lease: (group) => `${base}:g:${group}:lease`,
        groupMeta: (group) => `${base}:g:${group}:meta`,
        dedup: (dedupId) => `${base}:dedup:${dedupId}`,
      };
    },
  };
}

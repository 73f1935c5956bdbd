/**
 * Each queue's partition count as the scripts last reported it (every reply that routes by it
 * carries it), so routing costs no extra round trip. Partition 0's word is final; a copy's only
 * raises it. A count that is behind only delays delivery from new partitions, since partitions are
 * never removed.
 */

export interface PartitionCounts {
  /** The count last learned, or undefined when this instance has not met the queue yet. */
  get(queue: string): number | undefined;
  /** Takes a count a partition answered; answers the count now believed. */
  learn(queue: string, partitions: number, fromPartition0: boolean): number;
  /** The queue was deleted (or found gone). */
  forget(queue: string): void;
}

export function createPartitionCounts(): PartitionCounts {
  const known = new Map<string, number>();
  return {
    get: (queue) => known.get(queue),
    learn(queue, partitions, fromPartition0) {
      const before = known.get(queue);
      const next = fromPartition0 || before === undefined ? partitions : Math.max(before, partitions);
      known.set(queue, next);
      return next;
    },
    forget(queue) {
      known.delete(queue);
    },
  };
}

/**
 * How a queue's partitions come to be and stay what partition 0 says (docs/queue-design.md,
 * "Partitions"): partition 0 holds the queue's config record and its partition count; every other
 * partition holds a copy of the config and the same groups, made by partition-sync. Registration
 * is separate: produce, configure and createGroup report when the queue's config lacks its
 * `registered` marker, and the service then makes the other partitions, adds the name to the
 * registry and sets the marker (once per queue). A partition found missing is made again
 * (`repair`); growing makes the new partitions before any count says they exist (`grow`).
 */
import type { QueueContext } from '../context.ts';
import { QueueError, QueueErrorCode } from '../errors.ts';
import { CONFIG_FIELDS } from '../rules.ts';
import { scripts } from '../scripts.generated.ts';

/** What partition 0 says a partition must hold: its overrides (with their version) and groups. */
export interface PartitionBase {
  record: readonly string[];
  groups: readonly string[];
}

/** Partitions from..to-1. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** The partition count a stored config record holds: 1 for a queue from before partitions. */
export function recordPartitions(record: readonly string[]): number {
  for (let i = 0; i + 1 < record.length; i += 2) {
    if (record[i] === 'partitions') return Number(record[i + 1]) || 1;
  }
  return 1;
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

/** Partition 0's config record (and its count learned); QUEUE_NOT_FOUND when the queue does not exist. */
export async function readRecord(ctx: QueueContext, queue: string): Promise<readonly string[]> {
  const { exists, record } = await ctx.run(scripts.configGet, { queue }, {});
  if (!exists) throw new QueueError(QueueErrorCode.queueNotFound, `Queue "${queue}" does not exist`);
  ctx.partitions.learn(queue, recordPartitions(record), true);
  return record;
}

/** Partition 0's group names, schedules and partition count, each remembered. */
export async function readGroups(ctx: QueueContext, queue: string) {
  const reply = await ctx.run(scripts.groups, { queue }, {});
  ctx.partitions.learn(queue, reply.partitions, true);
  ctx.groups.setAll(queue, reply.names);
  return reply;
}

export async function readBase(ctx: QueueContext, queue: string): Promise<PartitionBase> {
  const record = await readRecord(ctx, queue);
  const { names } = await readGroups(ctx, queue);
  return { record, groups: names };
}

/**
 * Makes partitions what partition 0 says they are (partition-sync): a copy of the config, the
 * partition count, and `groups`, created at the start of the partition.
 */
export async function syncPartitions(
  ctx: QueueContext,
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
    partitions.map((partition) =>
      ctx.run(
        scripts.partitionSync,
        { queue, partition, groups },
        { version, partitions: count, registered, record: overrides },
      ),
    ),
  );
}

/**
 * A partition p ≥ 1 was found missing (a count learned from a queue since deleted, or a partition
 * whose making was interrupted): made again when partition 0 says the queue has it. False when it
 * does not (QUEUE_NOT_FOUND when the queue itself is gone).
 */
export async function repair(ctx: QueueContext, queue: string, partition: number): Promise<boolean> {
  const base = await readBase(ctx, queue);
  const count = recordPartitions(base.record);
  if (partition >= count) return false;
  await syncPartitions(ctx, queue, [partition], count, base, base.groups);
  return true;
}

/**
 * Registers a queue a partition reported unregistered: adds it to the registry, makes (or
 * re-marks) its other partitions, then marks partition 0's config registered. Best effort: the
 * operation itself succeeded, and a failure (or a crash) between the steps leaves a marker unset,
 * so the queue's next produce/configure/createGroup retries. Partition 0's marker is set last.
 */
export async function register(
  ctx: QueueContext,
  queue: string,
  unregistered: boolean,
  partitions: number,
  base?: PartitionBase,
): Promise<void> {
  if (!unregistered) return;
  try {
    await ctx.run(scripts.registryAdd, { queue }, {});
    if (partitions > 1) {
      const known = base ?? (await readBase(ctx, queue));
      await syncPartitions(ctx, queue, range(1, partitions), partitions, known, known.groups, true);
    }
    await ctx.run(scripts.queueMark, { queue }, {});
  } catch {
    // Healed by the next call on this queue.
  }
}

/**
 * Clears the `registered` marker of every partition of a queue re-created meanwhile (the name
 * just left the registry), so whichever partition its next call reaches registers it again.
 */
export async function unmark(ctx: QueueContext, queue: string): Promise<void> {
  const { partitions } = await ctx.run(scripts.queueUnmark, { queue }, {});
  await Promise.all(
    range(1, partitions).map((partition) => ctx.run(scripts.queueUnmark, { queue, partition }, {})),
  );
}

/** Removes the name from the registry, then clears the markers of a queue re-created meanwhile. */
export async function unregister(ctx: QueueContext, queue: string): Promise<void> {
  await ctx.run(scripts.registryRemove, { queue }, {});
  await unmark(ctx, queue);
}

/**
 * Grows a queue from `from` to `to` partitions without losing or doubling anything: the new
 * partitions are made (config copy and every group, at their start, in one script each) before
 * any copy or partition 0 raises its count, so no message can land in a partition that lacks
 * them. A growth interrupted midway leaves partitions that exist and copies that may already say
 * `to`: nothing is lost (messages there wait, or go to instances that learned the new count), and
 * repeating the configure completes it. partitions-grow answers the groups partition 0 has at the
 * moment the count rose; a group created or deleted meanwhile either is in that answer (and is
 * added to or removed from the new partitions here) or its own call saw the new count and covered
 * the new partitions itself.
 */
export async function grow(
  ctx: QueueContext,
  queue: string,
  from: number,
  to: number,
  base: PartitionBase,
): Promise<number> {
  // New partitions first: an instance that learns the new count (from any copy) finds them made.
  await syncPartitions(ctx, queue, range(from, to), to, base, base.groups);
  await syncPartitions(ctx, queue, range(1, from), to, base, []);
  const raised = await ctx.run(scripts.partitionsGrow, { queue }, { partitions: to });
  const added = raised.groups.filter((group) => !base.groups.includes(group));
  const removed = base.groups.filter((group) => !raised.groups.includes(group));
  await syncPartitions(ctx, queue, range(from, to), raised.partitions, base, added);
  await Promise.all(
    range(from, to).flatMap((partition) =>
      removed.map((group) => ctx.run(scripts.groupDelete, { queue, partition, group }, {})),
    ),
  );
  ctx.groups.setAll(queue, raised.groups);
  return ctx.partitions.learn(queue, raised.partitions, true);
}

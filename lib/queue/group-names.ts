/**
 * Each queue's consumer group names as last seen, the way the partition count is remembered:
 * scripts that act on every group (produce's key lines, stats, message lookup, the sweep, queue
 * deletion) take the groups' keys through KEYS, and these names say which keys to pass. The
 * scripts check them against the stream's groups and answer the actual names when they differ
 * (lib/queue/script-runner.ts runs them again), so a stale memory costs one round trip, never a
 * wrong answer. Every partition holds the same groups but while a growth or a group's creation or
 * deletion is under way: the names a partition last answered are kept for it, and are the queue's
 * names from then on for partitions that answered nothing since.
 */

export interface GroupNames {
  /** The names to pass for a partition: its own as last seen, else the queue's, else none. */
  of(queue: string, partition: number): readonly string[];
  /** What one partition answered: its names, and the queue's for the partitions without their own. */
  set(queue: string, partition: number, names: readonly string[]): void;
  /** What partition 0 answered for the whole queue (its `groups`): every partition's names. */
  setAll(queue: string, names: readonly string[]): void;
  /** A group made (on every partition) or deleted. */
  add(queue: string, group: string): void;
  remove(queue: string, group: string): void;
  forget(queue: string): void;
}

interface Known {
  all: readonly string[] | undefined;
  partitions: Map<number, readonly string[]>;
}

export function createGroupNames(): GroupNames {
  const known = new Map<string, Known>();
  const entry = (queue: string): Known => {
    let found = known.get(queue);
    if (found === undefined) {
      found = { all: undefined, partitions: new Map() };
      known.set(queue, found);
    }
    return found;
  };
  const change = (queue: string, edit: (names: readonly string[]) => readonly string[]) => {
    const found = known.get(queue);
    if (found === undefined) return;
    if (found.all !== undefined) found.all = edit(found.all);
    for (const [p, names] of found.partitions) found.partitions.set(p, edit(names));
  };
  return {
    of(queue, partition) {
      const found = known.get(queue);
      return found?.partitions.get(partition) ?? found?.all ?? [];
    },
    set(queue, partition, names) {
      const found = entry(queue);
      found.partitions.set(partition, [...names]);
      found.all = [...names];
    },
    setAll(queue, names) {
      known.set(queue, { all: [...names], partitions: new Map() });
    },
    add(queue, group) {
      change(queue, (names) => (names.includes(group) ? names : [...names, group]));
      entry(queue).all ??= [group];
    },
    remove(queue, group) {
      change(queue, (names) => names.filter((name) => name !== group));
    },
    forget(queue) {
      known.delete(queue);
    },
  };
}

/**
 * What every family of operations shares: the script runner over one Redis seam and key space,
 * the clock, the config defaults and limits, and what this instance remembers of each queue (its
 * partition count and group names, where produce and consume start rotating). lib/queue/service.ts
 * makes one per service and hands it to each family in lib/queue/ops/.
 */
import type { Clock } from '../clock.ts';
import type { RedisClient } from '../redis/client.ts';
import { type StoredConfig, storedDefaults } from './config.ts';
import { createGroupNames, type GroupNames } from './group-names.ts';
import { createKeySpace, type KeyScope, type KeySpace } from './keys.ts';
import { createPartitionCounts, type PartitionCounts } from './partitions/counts.ts';
import { DEFAULT_CONFIG, DEFAULT_LIMITS, type Limits, MAX_PARTITIONS, type QueueConfig } from './rules.ts';
import { type ScriptBinding, takesGroupKeys } from './script-binding.ts';
import { createScriptRunner, type RunOptions } from './script-runner.ts';
import { checkConfigPatch } from './validate.ts';
import { createWatchRegistry, type WatchRegistry } from './watch.ts';

export interface QueueServiceOptions {
  redis: RedisClient;
  clock: Clock;
  /** Config for queues that have not overridden a field (from the environment). */
  defaults?: Partial<QueueConfig>;
  limits?: Partial<Limits>;
  /** Prefix of every key; tests give each run its own. Default `q`. */
  keyPrefix?: string;
  /**
   * Where this instance starts rotating over partitions (produce spread, consume order): a number
   * in [0, 1). Random by default, so many stateless instances do not all start at partition 0.
   */
  random?: () => number;
}

/**
 * Runs a script on what `scope` names. A script that takes every group's keys gets the groups this
 * instance remembers for the partition unless the scope names them, and what it finds is
 * remembered.
 */
export type QueueRunner = <Scope extends KeyScope, Args, Reply>(
  script: ScriptBinding<Scope, Args, Reply>,
  scope: Omit<Scope, 'groups'> & { groups?: readonly string[] },
  args: Args,
  options?: RunOptions,
) => Promise<Reply>;

export interface QueueContext {
  readonly run: QueueRunner;
  readonly space: KeySpace;
  /** The Redis is a cluster (the keys of one call must share a slot): RedisClient's `cluster`. */
  readonly cluster: boolean;
  readonly clock: Clock;
  /** The clock's time in whole ms, as the scripts take it. */
  now(): number;
  /** The deployment's defaults. */
  readonly defaults: QueueConfig;
  /** What the scripts lay a queue's stored overrides over (a record without `partitions` means 1). */
  readonly scriptDefaults: StoredConfig;
  readonly limits: Limits;
  readonly partitions: PartitionCounts;
  readonly groups: GroupNames;
  /** Where the next call of `key` (a queue for produce, a queue and group for consume) starts. */
  rotate(key: string): number;
  readonly watches: WatchRegistry;
  /**
   * Called after a consume, reclaim or sweep dead-lettered messages of `queue` (or found some waiting
   * to move): moves them to the queue's deadLetterQueue (lib/queue/ops/dead-letter-forward.ts). Never
   * rejects; what it could not move the next sweep moves. The service sets it once assembled.
   */
  deadLettered: (queue: string) => Promise<void>;
  /**
   * Called by the sweep for a queue with an active message move task: one step of it, at most
   * `budget` messages (lib/queue/ops/move-tasks.ts). Never rejects; answers how many it moved.
   */
  advanceMove: (queue: string, budget: number) => Promise<number>;
}

export function createQueueContext(options: QueueServiceOptions): QueueContext {
  const { clock } = options;
  const defaults: QueueConfig = { ...DEFAULT_CONFIG, ...checkConfigPatch(options.defaults ?? {}) };
  const space = createKeySpace(options.keyPrefix);
  const runner = createScriptRunner(options.redis, space);
  const groups = createGroupNames();
  const random = options.random ?? Math.random;
  const rotation = new Map<string, number>();

  const run: QueueRunner = (script, scope, args, runOptions) => {
    if (!takesGroupKeys(script) || scope.queue === undefined) {
      return runner(script, scope as never, args, runOptions);
    }
    const { queue, partition = 0 } = scope;
    return runner(script, { ...scope, groups: scope.groups ?? groups.of(queue, partition) } as never, args, {
      ...runOptions,
      onGroups: (names) => groups.set(queue, partition, names),
    });
  };

  return {
    run,
    space,
    cluster: options.redis.cluster === true,
    clock,
    now: () => Math.floor(clock.now()),
    defaults,
    scriptDefaults: storedDefaults(defaults),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    partitions: createPartitionCounts(),
    groups,
    rotate(key) {
      const at = rotation.get(key) ?? Math.floor(random() * MAX_PARTITIONS);
      rotation.set(key, (at + 1) % (MAX_PARTITIONS * 1024));
      return at;
    },
    watches: createWatchRegistry({ redis: options.redis, clock }),
    deadLettered: async () => undefined,
    advanceMove: async () => 0,
  };
}

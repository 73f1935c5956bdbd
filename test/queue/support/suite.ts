/**
 * Runs a block of conformance tests once per backend and partition count, skipping (with the
 * reason in the title) the backends that are not available, and gives each test a fresh harness.
 * Queues made through the harness get `partitions` by default (the service's defaults), so the
 * same tests run on unpartitioned queues and on queues spread over 8 partitions.
 *
 * The vitest project says which backends run here (`queueLane`, see vitest.config.ts): the
 * in-process engine in the unit project, the servers in the conformance project, so each runs once
 * in a full run.
 */
import { afterAll, afterEach, beforeAll, describe, inject } from 'vitest';
import type { QueueServiceOptions } from '../../../lib/queue/service.ts';
import { type Backend, backends, type Harness } from './backends.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The backends of this project: the engine alone, or the servers. */
    queueLane: 'engine' | 'servers';
  }
}

/** The backends of this run's lane (every backend outside a project that names one). */
function laneBackends(): Backend[] {
  const lane: Backend['lane'] | undefined = inject('queueLane');
  return lane === undefined ? backends : backends.filter((backend) => backend.lane === lane);
}

/** The partition counts every conformance block runs with unless it names its own. */
export const PARTITION_VARIANTS: readonly number[] = [1, 8];

export interface SuiteOptions {
  /** Partition counts to run the block with (default PARTITION_VARIANTS). */
  partitions?: readonly number[];
}

export function onEveryBackend(
  title: string,
  body: (make: (options?: Partial<QueueServiceOptions>) => Harness) => void,
  suiteOptions: SuiteOptions = {},
): void {
  for (const backend of laneBackends()) {
    for (const partitions of suiteOptions.partitions ?? PARTITION_VARIANTS) {
      const where = `${backend.name}${partitions === 1 ? '' : `, ${partitions} partitions`}`;
      const name =
        backend.skip === undefined
          ? `${title} on ${where}`
          : `${title} on ${where} (skipped: ${backend.skip})`;
      describe.skipIf(backend.skip !== undefined)(name, () => {
        const made: Harness[] = [];
        beforeAll(() => backend.setup());
        afterAll(() => backend.teardown());
        afterEach(async () => {
          for (const harness of made.splice(0)) await harness.cleanup();
        });
        body((options = {}) => {
          const harness = backend.harness({ ...options, defaults: { partitions, ...options.defaults } });
          made.push(harness);
          return harness;
        });
      });
    }
  }
}

/**
 * What a message id (or delayed token) looks like on a queue of `partitions`: the plain form on
 * one partition; on more, the plain form for partition 0 and `-<p>` after it for the others.
 */
export function idShape(plain: RegExp, partitions: number): RegExp {
  const body = plain.source.replace(/^\^|\$$/g, '');
  return partitions === 1 ? plain : new RegExp(`^${body}(?:-(?:[1-9]|[1-9]\\d|1\\d\\d|2[0-4]\\d|25[0-5]))?$`);
}

export type { Backend, Harness };

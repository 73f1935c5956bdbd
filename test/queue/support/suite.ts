/**
 * Runs a block of conformance tests once per backend, skipping (with the reason in the title)
 * the backends that are not available, and gives each test a fresh harness.
 */
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { QueueServiceOptions } from '../../../lib/queue/service.ts';
import { type Backend, backends, type Harness } from './backends.ts';

export function onEveryBackend(
  title: string,
  body: (make: (options?: Partial<QueueServiceOptions>) => Harness) => void,
): void {
  for (const backend of backends) {
    const name =
      backend.skip === undefined
        ? `${title} on ${backend.name}`
        : `${title} on ${backend.name} (skipped: ${backend.skip})`;
    describe.skipIf(backend.skip !== undefined)(name, () => {
      const made: Harness[] = [];
      beforeAll(() => backend.setup());
      afterAll(() => backend.teardown());
      afterEach(async () => {
        for (const harness of made.splice(0)) await harness.cleanup();
      });
      body((options) => {
        const harness = backend.harness(options);
        made.push(harness);
        return harness;
      });
    });
  }
}

export type { Backend, Harness };

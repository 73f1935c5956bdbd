/**
 * Four projects, so the fast loop stays fast: `npm run test:unit` while iterating, `npm test` for
 * everything. Projects are chosen by directory; unit takes every test file the other three do not
 * claim, so a new directory runs somewhere rather than nowhere.
 *
 * The queue's conformance suite (test/queue/support/suite.ts) runs in two lanes, each backend
 * once: its in-process engine lane in unit, so the fast loop exercises the whole queue, and its
 * server lanes (redis-server over TCP, the REST front, a 3-master cluster) in conformance. A
 * test/queue file that calls `onEveryBackend(` is in both projects; the other test/queue files
 * are pure and run in unit, but those listed in `queueServers`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

const root = new URL('./', import.meta.url);

/** The test/queue files that run the conformance suite. */
const queueSuites = readdirSync(new URL('test/queue/', root), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/queue/${file.replaceAll('\\', '/')}`)
  .filter((file) => readFileSync(new URL(file, root), 'utf8').includes('onEveryBackend('))
  .sort();

/** Queue tests that reach servers of their own (or a dead port), outside the suite. */
const queueServers = [
  'test/queue/adapters.test.ts',
  'test/queue/cluster-failover.test.ts',
  'test/queue/wake-abort.test.ts',
];

/**
 * Suites that run the queue, the REST front and the API on each backend (engine, Redis, REST), and
 * the API with faults injected between it and Redis.
 */
const conformance = [
  ...queueSuites,
  ...queueServers,
  'test/rest-front/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/contract/**/*.test.ts',
  'test/faults/**/*.test.ts',
  // The client, its worker and the esq CLI against the real service over HTTP.
  'test/client/**/*.test.ts',
  // The SQS-compatible API with the real AWS SDK, boto3 and sqs-consumer (issue 28).
  'test/sqs/**/*.test.ts',
];

/**
 * Seeded random sequences checked against a reference: replies compared with the real
 * redis-server, and the engine's id trees and consumer-group PELs against plain models (these two
 * took 20 s of the engine's 27 s here).
 */
const differential = [
  'test/differential/**/*.test.ts',
  'test/engine/commands/fuzz.test.ts',
  'test/engine/commands/random-sequences.test.ts',
  'test/engine/scripting/differential.test.ts',
  'test/engine/data/id-tree.test.ts',
  'test/engine/data/stream-group.test.ts',
];

/** The real workerd, deno and `npm start` processes, and the dashboard in a real Chromium. */
const runtimes = ['test/runtimes/**/*.test.ts', 'test/dashboard/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            ...conformance.filter((file) => !queueSuites.includes(file)),
            ...differential,
            ...runtimes,
          ],
          provide: { queueLane: 'engine' },
          // The files share one module graph per worker instead of loading the engine (and its Lua
          // VM) afresh each: 27 s became 8 s here. Each test builds its own engine; what the
          // engine's modules keep is scratch space, or process-wide in Redis too (errno).
          isolate: false,
        },
      },
      {
        extends: true,
        // One 3-master Redis Cluster of our own for the suites' cluster backend.
        test: {
          name: 'conformance',
          include: conformance,
          globalSetup: ['test/support/cluster-global-setup.ts'],
          provide: { queueLane: 'servers' },
        },
      },
      { extends: true, test: { name: 'differential', include: differential } },
      { extends: true, test: { name: 'runtimes', include: runtimes } },
    ],
  },
});

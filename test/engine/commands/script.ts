/**
 * Runs a command script on the engine and, when a server answers, on real Redis, checking every
 * reply against the values written in the test. The expected values were taken from Redis 7.0.15;
 * running the same script on the server keeps them honest. `$` in an argument or an expected
 * string stands for a per-run key prefix, so runs on the shared server never collide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../../lib/engine/clock.ts';
import { createEngine, type Engine } from '../../../lib/engine/engine.ts';
import { RedisError, type Reply, StatusReply } from '../../../lib/engine/reply.ts';
import { REDIS_URL, redisAvailable } from '../../support/redis.ts';
import { createRespClient, type RespClient } from '../../support/resp-client.ts';

/** A reply as written in a test: statuses and errors are tagged so they never pass for strings. */
export type Expected = number | string | null | { status: string } | { error: string } | Expected[];

/** One command and its reply; `unordered` compares arrays as multisets (KEYS, SMEMBERS). */
export type Step = readonly [argv: readonly string[], expected: Expected, mode?: 'unordered'];

export function status(text: string): { status: string } {
  return { status: text };
}

export function error(text: string): { error: string } {
  return { error: text };
}

/** Engine and server replies in the shape tests write them. */
export function normalize(reply: Reply): Expected {
  if (reply instanceof StatusReply) return status(reply.status);
  if (reply instanceof RedisError) return error(reply.message);
  if (Array.isArray(reply)) return reply.map(normalize);
  return reply;
}

function withPrefix(value: Expected, prefix: string): Expected {
  if (typeof value === 'string') return value.replaceAll('$', prefix);
  if (Array.isArray(value)) return value.map((item) => withPrefix(item, prefix));
  return value;
}

function sortedIfUnordered(value: Expected, mode: Step[2]): Expected {
  if (mode !== 'unordered' || !Array.isArray(value)) return value;
  return [...value].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

function check(reply: Reply, step: Step, prefix: string): void {
  const [argv, expected, mode] = step;
  const actual = sortedIfUnordered(normalize(reply), mode);
  const wanted = sortedIfUnordered(withPrefix(expected, prefix), mode);
  expect(actual, argv.join(' ')).toEqual(wanted);
}

let runs = 0;
function uniquePrefix(): string {
  runs++;
  return `cmdtest:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:${runs}:`;
}

/** A fresh engine on a manual clock, for scripts that also need the clock or the keyspace. */
export function freshEngine(): { engine: Engine; clock: ManualClock } {
  const clock = createManualClock();
  return { engine: createEngine({ clock }), clock };
}

/** Runs `steps` on a fresh engine, checking each reply. */
export function runOnEngine(steps: readonly Step[], engine = freshEngine().engine): void {
  const prefix = uniquePrefix();
  for (const step of steps)
    check(engine.callSync(step[0].map((arg) => arg.replaceAll('$', prefix))), step, prefix);
}

/**
 * Defines one test per script on the engine and the same tests on real Redis (skipped when no
 * server answers, failing under REQUIRE_REDIS=1 as test/support/redis.ts decides).
 */
export function describeScripts(title: string, scripts: Record<string, readonly Step[]>): void {
  // These scripts also run on the shared server: anything that empties a database stays out.
  for (const steps of Object.values(scripts)) {
    for (const [argv] of steps) {
      if (/^flush/i.test(argv[0] ?? ''))
        throw new Error('FLUSHALL/FLUSHDB must not run on the shared server');
    }
  }
  describe(`${title} on the engine`, () => {
    for (const [name, steps] of Object.entries(scripts)) it(name, () => runOnEngine(steps));
  });

  describe.skipIf(!redisAvailable)(`${title} on real Redis (keeps the expected values honest)`, () => {
    let client: RespClient;
    beforeAll(async () => {
      client = await createRespClient(REDIS_URL);
    });
    afterAll(async () => {
      await client?.close();
    });

    for (const [name, steps] of Object.entries(scripts)) {
      it(name, async () => {
        const prefix = uniquePrefix();
        try {
          for (const step of steps) {
            check(await client.call(step[0].map((arg) => arg.replaceAll('$', prefix))), step, prefix);
          }
        } finally {
          const keys = await client.call(['KEYS', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`]);
          if (Array.isArray(keys) && keys.length > 0) await client.call(['DEL', ...(keys as string[])]);
        }
      });
    }
  });
}

/**
 * Command scripts: each step is a command and the reply Redis 7.0.15 gives, run on a fresh engine
 * and, when a server answers, on real Redis too, so the expected values stay honest.
 *
 * A placeholder character in an argument or an expected string (or error text) stands for a
 * per-run key prefix, so runs on the shared server never collide. Each test file picks it with
 * `commandScripts({ placeholder })`: the command tests use `$`; the stream tests use `@`, because
 * `$` is an id argument of XREAD and XGROUP.
 *
 * Stream scripts that also run on the server use explicit ids and no time-dependent values (idle
 * times, seen-times, `*` ids); those checks run on the engine alone with a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../lib/clock.ts';
import { createEngine, type Engine } from '../../lib/engine/engine.ts';
import { RedisError, type Reply, StatusReply } from '../../lib/engine/reply.ts';
import { REDIS_URL, redisAvailable } from './redis.ts';
import { createRespClient, type RespClient } from './resp-client.ts';

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

export const OK = status('OK');
export const WRONGTYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');
export const SYNTAX = error('ERR syntax error');
export const NOT_INTEGER = error('ERR value is not an integer or out of range');
export const INVALID_ID = error('ERR Invalid stream ID specified as stream command argument');
export const MAX = '18446744073709551615';
export const MAX_ID = `${MAX}-${MAX}`;

/** Engine and server replies in the shape tests write them. */
export function normalize(reply: Reply): Expected {
  if (reply instanceof StatusReply) return status(reply.status);
  if (reply instanceof RedisError) return error(reply.message);
  if (Array.isArray(reply)) return reply.map(normalize);
  return reply;
}

/** Runs a command and returns its reply in test form. */
export function call(engine: Engine, ...argv: string[]): Expected {
  return normalize(engine.callSync(argv));
}

/** A fresh engine on a manual clock (1_700_000_000_000 ms). */
export function freshEngine(): { engine: Engine; clock: ManualClock } {
  const clock = createManualClock();
  return { engine: createEngine({ clock }), clock };
}

function sortedIfUnordered(value: Expected, mode: Step[2]): Expected {
  if (mode !== 'unordered' || !Array.isArray(value)) return value;
  return [...value].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

export interface ScriptOptions {
  /** The character that stands for the per-run key prefix: `$` for commands, `@` for streams. */
  readonly placeholder: string;
  /** How keys written on the server begin, so leftovers say which suite wrote them. */
  readonly keyTag?: string;
}

export interface ScriptRunner {
  /** Runs `steps` on `engine` (a fresh one by default) under a new per-run prefix. */
  runOnEngine(steps: readonly Step[], engine?: Engine): void;
  /** Runs `steps` on `engine` with the placeholder standing for nothing. */
  runSteps(engine: Engine, steps: readonly Step[]): void;
  /**
   * Defines one test per script on the engine and the same tests on real Redis (skipped when no
   * server answers, failing under REQUIRE_REDIS=1 as test/support/redis.ts decides).
   */
  describeScripts(title: string, scripts: Record<string, readonly Step[]>): void;
}

let runs = 0;

/** The script runner for one placeholder. */
export function commandScripts({ placeholder, keyTag = 'cmdtest' }: ScriptOptions): ScriptRunner {
  if (placeholder.length === 0) throw new Error('the key placeholder must not be empty');

  const withPrefix = (value: Expected, prefix: string): Expected => {
    if (typeof value === 'string') return value.replaceAll(placeholder, prefix);
    if (Array.isArray(value)) return value.map((item) => withPrefix(item, prefix));
    if (value !== null && typeof value === 'object' && 'error' in value) {
      return error(value.error.replaceAll(placeholder, prefix));
    }
    return value;
  };

  const argvWithPrefix = (argv: readonly string[], prefix: string): string[] =>
    argv.map((arg) => arg.replaceAll(placeholder, prefix));

  const check = (reply: Reply, step: Step, prefix: string): void => {
    const [argv, expected, mode] = step;
    const actual = sortedIfUnordered(normalize(reply), mode);
    const wanted = sortedIfUnordered(withPrefix(expected, prefix), mode);
    expect(actual, argv.join(' ')).toEqual(wanted);
  };

  const uniquePrefix = (): string => {
    runs++;
    return `${keyTag}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:${runs}:`;
  };

  const runOnEngine = (steps: readonly Step[], engine = freshEngine().engine): void => {
    const prefix = uniquePrefix();
    for (const step of steps) check(engine.callSync(argvWithPrefix(step[0], prefix)), step, prefix);
  };

  const runSteps = (engine: Engine, steps: readonly Step[]): void => {
    for (const step of steps) check(engine.callSync(argvWithPrefix(step[0], '')), step, '');
  };

  const describeScripts = (title: string, scripts: Record<string, readonly Step[]>): void => {
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
              check(await client.call(argvWithPrefix(step[0], prefix)), step, prefix);
            }
          } finally {
            const keys = await client.call(['KEYS', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`]);
            if (Array.isArray(keys) && keys.length > 0) await client.call(['DEL', ...(keys as string[])]);
          }
        });
      }
    });
  };

  return { runOnEngine, runSteps, describeScripts };
}

/** The seven fields both forms of XINFO STREAM start with. */
export interface StreamHead {
  readonly length: number;
  readonly keys: number;
  readonly nodes: number;
  readonly last: string;
  readonly maxDeleted?: string;
  readonly added: number;
  readonly first: string;
}

function headFields(head: StreamHead): Expected[] {
  return [
    'length',
    head.length,
    'radix-tree-keys',
    head.keys,
    'radix-tree-nodes',
    head.nodes,
    'last-generated-id',
    head.last,
    'max-deleted-entry-id',
    head.maxDeleted ?? '0-0',
    'entries-added',
    head.added,
    'recorded-first-entry-id',
    head.first,
  ];
}

/** An XINFO STREAM reply. */
export function streamSummary(
  head: StreamHead,
  rest: { groups?: number; firstEntry: Expected; lastEntry: Expected },
): Expected {
  return [
    ...headFields(head),
    'groups',
    rest.groups ?? 0,
    'first-entry',
    rest.firstEntry,
    'last-entry',
    rest.lastEntry,
  ];
}

/** An XINFO STREAM FULL reply. */
export function streamFull(head: StreamHead, entries: Expected[], groups: Expected[] = []): Expected {
  return [...headFields(head), 'entries', entries, 'groups', groups];
}

/** `count` entries `1-0` … `count-0` with field `f` and value `v<i>`. */
export function fill(key: string, count: number, start = 1): Step[] {
  return Array.from(
    { length: count },
    (_, i): Step => [['XADD', key, `${start + i}-0`, 'f', `v${start + i}`], `${start + i}-0`],
  );
}

/**
 * Stream command scripts: each step is a command and the reply Redis 7.0.15 gives, run on a fresh
 * engine and, when a server answers, on real Redis too, so the expected values stay honest.
 * test/engine/commands/script.ts does the same with `$` as the key placeholder, but `$` is an id
 * argument of XREAD and XGROUP; here `@` stands for the per-run key prefix instead.
 *
 * Scripts that also run on the server use explicit ids and no time-dependent values (idle times,
 * seen-times, `*` ids); those checks run on the engine alone with a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../../lib/engine/clock.ts';
import { createEngine, type Engine } from '../../../lib/engine/engine.ts';
import type { Reply } from '../../../lib/engine/reply.ts';
import { REDIS_URL, redisAvailable } from '../../support/redis.ts';
import { createRespClient, type RespClient } from '../../support/resp-client.ts';
import { type Expected, error, normalize, status } from '../commands/script.ts';

export type { Expected };
export { error, status };

/** One command and the reply it must get. */
export type Step = readonly [argv: readonly string[], expected: Expected];

export const OK = status('OK');
export const WRONGTYPE = error('WRONGTYPE Operation against a key holding the wrong kind of value');
export const SYNTAX = error('ERR syntax error');
export const NOT_INTEGER = error('ERR value is not an integer or out of range');
export const INVALID_ID = error('ERR Invalid stream ID specified as stream command argument');
export const MAX = '18446744073709551615';
export const MAX_ID = `${MAX}-${MAX}`;

function withPrefix(value: Expected, prefix: string): Expected {
  if (typeof value === 'string') return value.replaceAll('@', prefix);
  if (Array.isArray(value)) return value.map((item) => withPrefix(item, prefix));
  if (value !== null && typeof value === 'object' && 'error' in value) {
    return error(value.error.replaceAll('@', prefix));
  }
  return value;
}

function check(reply: Reply, [argv, expected]: Step, prefix: string): void {
  expect(normalize(reply), argv.join(' ')).toEqual(withPrefix(expected, prefix));
}

let runs = 0;
function uniquePrefix(): string {
  runs++;
  return `streamtest:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:${runs}:`;
}

const argvWithPrefix = (argv: readonly string[], prefix: string) =>
  argv.map((arg) => arg.replaceAll('@', prefix));

/** A fresh engine on a manual clock (1_700_000_000_000 ms). */
export function freshEngine(): { engine: Engine; clock: ManualClock } {
  const clock = createManualClock();
  return { engine: createEngine({ clock }), clock };
}

/** Runs `steps` with `callSync`, checking each reply. */
export function runSteps(engine: Engine, steps: readonly Step[]): void {
  for (const step of steps) check(engine.callSync(argvWithPrefix(step[0], '')), step, '');
}

/** Runs a command and returns its reply in test form. */
export function call(engine: Engine, ...argv: string[]): Expected {
  return normalize(engine.callSync(argv));
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

/**
 * One test per script on the engine, and the same scripts on real Redis (skipped without a
 * server; CI sets REQUIRE_REDIS=1, which makes a missing server fail instead).
 */
export function describeScripts(title: string, scripts: Record<string, readonly Step[]>): void {
  describe(`${title} on the engine`, () => {
    for (const [name, steps] of Object.entries(scripts)) {
      it(name, () => {
        const { engine } = freshEngine();
        const prefix = uniquePrefix();
        for (const step of steps) check(engine.callSync(argvWithPrefix(step[0], prefix)), step, prefix);
      });
    }
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
          for (const step of steps) check(await client.call(argvWithPrefix(step[0], prefix)), step, prefix);
        } finally {
          const keys = await client.call(['KEYS', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`]);
          if (Array.isArray(keys) && keys.length > 0) await client.call(['DEL', ...(keys as string[])]);
        }
      });
    }
  });
}

/**
 * Helpers for the differential suite: run the same commands on a private engine and on the shared
 * real redis-server, and compare the replies exactly. Apart from SMEMBERS (compared sorted: Redis
 * answers in hash-table order), the only values not compared for equality are wall-clock ones
 * (idle times, delivery and seen times, PTTL/TTL, TIME, and `*`-generated ids whose millisecond
 * part is "now"): those are compared within a tolerance instead, because the engine's manual clock
 * is synced to the server's TIME before each step and the server's clock keeps moving.
 */
import { createManualClock, type ManualClock } from '../../lib/clock.ts';
import { createEngine, type Engine } from '../../lib/engine/engine.ts';
import { RedisError, type Reply, StatusReply } from '../../lib/engine/reply.ts';
import { createRespClient, type RespClient } from './resp-client.ts';

/**
 * The default tolerance (ms) for comparing wall-clock values outside a session. A session uses a
 * tighter one it measures: see `createDiffSession`.
 */
export const WALL_CLOCK_TOLERANCE_MS = 1500;
/** Slack on top of a session's measured tolerance: ms rounding on either side. */
const ROUNDING_SLACK_MS = 5;
/** Ids whose ms part lies this close to the run's start are `*`-generated and masked. */
const WALL_CLOCK_WINDOW_MS = 24 * 3600 * 1000;

/** A wall-clock value lifted out of a reply: compared within tolerance, not for equality. */
export class WallClock {
  constructor(
    readonly kind: 'time' | 'duration' | 'seconds' | 'id',
    readonly value: number,
  ) {}
}

type Normalised = string | number | null | StatusReply | RedisError | WallClock | Normalised[];

/**
 * Renders a reply with its RESP type visible: `+OK`, `-ERR ...`, `:1`, `"bulk"`, `nil`, `[...]`.
 * With `masked`, wall-clock values render as `<time>`, `<duration>`, `<seconds>` or `<id>`.
 */
export function renderReply(reply: Normalised, masked = false): string {
  if (reply === null) return 'nil';
  if (typeof reply === 'number') return `:${reply}`;
  if (typeof reply === 'string') return JSON.stringify(reply);
  if (reply instanceof StatusReply) return `+${reply.status}`;
  if (reply instanceof RedisError) return `-${reply.message}`;
  if (reply instanceof WallClock) return masked ? `<${reply.kind}>` : `~${reply.kind}(${reply.value})`;
  return `[${reply.map((item) => renderReply(item, masked)).join(', ')}]`;
}

/** Renders a command as you would type it in redis-cli (arguments with spaces are quoted). */
export function renderCommand(argv: readonly string[]): string {
  return argv.map((arg) => (/^[^\s"']+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ');
}

const ID = /^(\d+)-(\d+)$/;

/** Lifts every wall-clock value of `reply` (to `argv`) into a WallClock marker. */
export function normaliseReply(argv: readonly string[], reply: Reply, runStart: number): Normalised {
  const ids = liftIds(reply, runStart);
  const name = (argv[0] ?? '').toLowerCase();
  const sub = (argv[1] ?? '').toLowerCase();
  if (name === 'time' && Array.isArray(ids) && ids.length === 2) {
    return new WallClock('time', Number(ids[0]) * 1000 + Math.floor(Number(ids[1]) / 1000));
  }
  // The one non-clock normalisation: a set's member order is hash-table order in Redis, which no
  // emulation can (or should) reproduce, so SMEMBERS is compared as a sorted list.
  if (name === 'smembers' && Array.isArray(ids)) {
    return [...ids].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  }
  if (name === 'pttl' && typeof ids === 'number' && ids >= 0) return new WallClock('duration', ids);
  if (name === 'ttl' && typeof ids === 'number' && ids >= 0) return new WallClock('seconds', ids);
  if (name === 'xpending' && argv.length >= 6 && Array.isArray(ids)) {
    return ids.map((row) => liftAt(row, 2, 'duration'));
  }
  if (name === 'xinfo' && sub === 'consumers' && Array.isArray(ids)) {
    return ids.map((consumer) => liftField(consumer, 'idle', 'duration'));
  }
  if (name === 'xinfo' && sub === 'stream' && argv.some((a) => a.toLowerCase() === 'full')) {
    return mapField(ids, 'groups', (groups) =>
      Array.isArray(groups)
        ? groups.map((group) => {
            let out = mapField(group, 'pending', (rows) =>
              Array.isArray(rows) ? rows.map((row) => liftAt(row, 2, 'time')) : rows,
            );
            out = mapField(out, 'consumers', (consumers) =>
              Array.isArray(consumers)
                ? consumers.map((consumer) =>
                    mapField(liftField(consumer, 'seen-time', 'time'), 'pending', (rows) =>
                      Array.isArray(rows) ? rows.map((row) => liftAt(row, 1, 'time')) : rows,
                    ),
                  )
                : consumers,
            );
            return out;
          })
        : groups,
    );
  }
  return ids;
}

function liftIds(reply: Reply, runStart: number): Normalised {
  if (Array.isArray(reply)) return reply.map((item) => liftIds(item, runStart));
  if (typeof reply === 'string') {
    const match = ID.exec(reply);
    if (match !== null) {
      const ms = Number(match[1]);
      if (Math.abs(ms - runStart) <= WALL_CLOCK_WINDOW_MS) return new WallClock('id', ms);
    }
  }
  return reply;
}

function liftAt(row: Normalised, index: number, kind: WallClock['kind']): Normalised {
  if (!Array.isArray(row)) return row;
  const value = row[index];
  if (typeof value !== 'number') return row;
  return row.map((item, i) => (i === index ? new WallClock(kind, value) : item));
}

/** In a flat field/value list, replaces the value after `field` with `update(value)`. */
function mapField(map: Normalised, field: string, update: (value: Normalised) => Normalised): Normalised {
  if (!Array.isArray(map)) return map;
  return map.map((item, i) => (i % 2 === 1 && map[i - 1] === field ? update(item) : item));
}

function liftField(map: Normalised, field: string, kind: WallClock['kind']): Normalised {
  return mapField(map, field, (value) => (typeof value === 'number' ? new WallClock(kind, value) : value));
}

/** Like normaliseReply, but an EXEC reply is normalised element by element with each command's rules. */
export function normaliseStep(
  argv: readonly string[],
  reply: Reply,
  runStart: number,
  transaction?: readonly (readonly string[])[],
): Normalised {
  if (transaction === undefined || !Array.isArray(reply) || reply.length !== transaction.length) {
    return normaliseReply(argv, reply, runStart);
  }
  return reply.map((item, i) => normaliseReply(transaction[i] ?? [], item, runStart));
}

/** Where two normalised replies first differ, or undefined when they are the same. */
export function findDifference(
  expected: Normalised,
  got: Normalised,
  toleranceMs = WALL_CLOCK_TOLERANCE_MS,
  path = '$',
): string | undefined {
  if (expected instanceof WallClock || got instanceof WallClock) {
    if (!(expected instanceof WallClock && got instanceof WallClock) || expected.kind !== got.kind) {
      return `${path}: type differs`;
    }
    // TTL rounds to the nearest second, so one second more than the time that passed.
    const tolerance = expected.kind === 'seconds' ? Math.ceil(toleranceMs / 1000) + 1 : toleranceMs;
    return Math.abs(expected.value - got.value) <= tolerance
      ? undefined
      : `${path}: wall-clock value ${expected.value} vs ${got.value}`;
  }
  if (Array.isArray(expected) || Array.isArray(got)) {
    if (!(Array.isArray(expected) && Array.isArray(got))) return `${path}: type differs`;
    if (expected.length !== got.length) return `${path}: length ${expected.length} vs ${got.length}`;
    for (let i = 0; i < expected.length; i++) {
      const inner = findDifference(expected[i] ?? null, got[i] ?? null, toleranceMs, `${path}[${i}]`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  if (expected instanceof StatusReply || got instanceof StatusReply) {
    return expected instanceof StatusReply && got instanceof StatusReply && expected.status === got.status
      ? undefined
      : `${path}: status differs`;
  }
  if (expected instanceof RedisError || got instanceof RedisError) {
    return expected instanceof RedisError && got instanceof RedisError && expected.message === got.message
      ? undefined
      : `${path}: error differs`;
  }
  return expected === got ? undefined : `${path}: value differs`;
}

/** One step where the engine did not answer like Redis. */
export interface Mismatch {
  readonly step: number;
  readonly argv: readonly string[];
  /** For a MULTI/EXEC step, the commands inside it (`argv` then only names them). */
  readonly transaction: readonly (readonly string[])[] | undefined;
  readonly redis: Reply;
  readonly engine: Reply;
  readonly where: string;
}

export function renderMismatch(m: Mismatch): string {
  return [
    `step ${m.step}: ${renderCommand(m.argv)}`,
    `  redis:  ${renderReply(m.redis)}`,
    `  engine: ${renderReply(m.engine)}`,
    `  (${m.where})`,
  ].join('\n');
}

/** Connects to the shared server once per test file. */
export function connectServer(url: string): Promise<RespClient> {
  return createRespClient(url);
}

let sessionCounter = 0;

/** An item of a pipelined batch: a command or a MULTI/EXEC transaction. */
export type BatchItem = readonly string[] | { readonly multi: readonly (readonly string[])[] };

/**
 * One comparison session: a fresh engine on a manual clock, the shared server connection, a
 * unique key prefix (the server is shared, so keys are never reused and are deleted at the end).
 */
export interface DiffSession {
  readonly engine: Engine;
  readonly clock: ManualClock;
  readonly server: RespClient;
  /** Every mismatch seen so far, in step order. */
  readonly mismatches: Mismatch[];
  /** What `key` puts in front of every name. */
  readonly prefix: string;
  /** When the session started: ids with a ms part near it are `*`-generated. */
  readonly runStart: number;
  /** A key name unique to this session (the same name on the engine and the server). */
  key(name: string): string;
  /**
   * Runs one command on both sides (after syncing the engine's clock to the server's TIME),
   * records a mismatch if the replies differ, and returns both replies.
   */
  run(argv: readonly string[]): Promise<{ redis: Reply; engine: Reply }>;
  /**
   * Runs commands (and MULTI/EXEC transactions) pipelined on the server (one round trip, clock
   * synced once at the start), then on the engine; stops at the first mismatch and returns it with
   * its index in `items` (later steps would only cascade).
   */
  runBatch(items: readonly BatchItem[]): Promise<{ index: number; mismatch: Mismatch } | undefined>;
  /**
   * Runs commands as one MULTI/EXEC on the server and as `engine.exec` on the engine, comparing
   * the EXEC replies (recorded as the step `EXEC <commands>`).
   */
  runTransaction(commands: readonly (readonly string[])[]): Promise<void>;
  /**
   * Sends a blocking command (on the server: over this session's connection, then waits until the
   * server lists the client as blocked; on the engine: `engine.call`), runs `wakers` one by one on
   * both (on the server over `other`, a second connection), then compares every reply, the blocked
   * command's last. Nothing sleeps: the blocked reply arrives when a waker releases it, or, with
   * no wakers, when its own (tiny) BLOCK timeout passes on both sides.
   */
  runBlocked(blocking: readonly string[], wakers: readonly BatchItem[], other: RespClient): Promise<void>;
  /** Deletes every key this session named on the server. */
  cleanup(): Promise<void>;
}

export function createDiffSession(server: RespClient, label = 'diff'): DiffSession {
  const clock = createManualClock();
  const engine = createEngine({ clock });
  const prefix = `${label}:${process.pid}:${Date.now().toString(36)}:${(sessionCounter++).toString(36)}:`;
  const keys = new Set<string>();
  const mismatches: Mismatch[] = [];
  const runStart = Date.now();
  let step = 0;
  /**
   * The longest a step took on the server (TIME before to TIME after). The engine's clock stands
   * at the start of a step while the server's moves through it, so a wall-clock value differs by at
   * most one step's span, or two when it compares a time recorded in an earlier step (an idle
   * time): the tolerance is twice the longest span, which stays a few ms unless the shared server
   * stalls, and then grows with the stall instead of failing.
   */
  let longestSpan = 0;
  const tolerance = () => 2 * longestSpan + ROUNDING_SLACK_MS;

  function timeOf(time: Reply | undefined): number {
    if (!Array.isArray(time) || typeof time[0] !== 'string' || typeof time[1] !== 'string') {
      throw new Error(`TIME answered ${renderReply(time ?? null)}`);
    }
    return Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  }

  function syncClock(time: Reply | undefined): void {
    clock.set(timeOf(time));
  }

  function observeSpan(start: Reply | undefined, end: Reply | undefined): void {
    longestSpan = Math.max(longestSpan, timeOf(end) - timeOf(start));
  }

  function compare(
    argv: readonly string[],
    redis: Reply,
    engineReply: Reply,
    transaction?: readonly (readonly string[])[],
  ): Mismatch | undefined {
    step += 1;
    const where = findDifference(
      normaliseStep(argv, redis, runStart, transaction),
      normaliseStep(argv, engineReply, runStart, transaction),
      tolerance(),
    );
    if (where === undefined) return undefined;
    const mismatch: Mismatch = { step, argv, redis, engine: engineReply, where, transaction };
    mismatches.push(mismatch);
    return mismatch;
  }

  return {
    engine,
    clock,
    server,
    mismatches,
    prefix,
    runStart,
    key(name) {
      const key = `${prefix}${name}`;
      keys.add(key);
      return key;
    },
    async run(argv) {
      const [time, redis, end] = await server.pipeline([['TIME'], argv, ['TIME']]);
      syncClock(time);
      observeSpan(time, end);
      const engineReply = engine.callSync(argv);
      compare(argv, redis ?? null, engineReply);
      return { redis: redis ?? null, engine: engineReply };
    },
    async runBatch(items) {
      const wire: (readonly string[])[] = [['TIME']];
      for (const item of items) {
        if ('multi' in item) wire.push(['MULTI'], ...item.multi, ['EXEC']);
        else wire.push(item);
      }
      wire.push(['TIME']);
      const replies = await server.pipeline(wire);
      syncClock(replies[0]);
      observeSpan(replies[0], replies[replies.length - 1]);
      let at = 1;
      for (const [index, item] of items.entries()) {
        let mismatch: Mismatch | undefined;
        if ('multi' in item) {
          // Only EXEC's reply is compared: the engine has no queue-time replies (+QUEUED) to match.
          at += item.multi.length + 2;
          mismatch = compare(
            transactionArgv(item.multi),
            replies[at - 1] ?? null,
            engine.exec(item.multi),
            item.multi,
          );
        } else {
          mismatch = compare(item, replies[at] ?? null, engine.callSync(item));
          at += 1;
        }
        if (mismatch !== undefined) return { index, mismatch };
      }
      return undefined;
    },
    async runTransaction(commands) {
      const replies = await server.pipeline([['TIME'], ['MULTI'], ...commands, ['EXEC'], ['TIME']]);
      syncClock(replies[0]);
      observeSpan(replies[0], replies[replies.length - 1]);
      const engineReply = engine.exec(commands);
      compare(transactionArgv(commands), replies[replies.length - 2] ?? null, engineReply, commands);
    },
    async runBlocked(blocking, wakers, other) {
      const [time, id] = await server.pipeline([['TIME'], ['CLIENT', 'ID']]);
      syncClock(time);
      const redisBlocked = server.call(blocking);
      // With no wakers the call can only time out (a tiny BLOCK), possibly before it is ever listed.
      if (wakers.length > 0) await waitUntilBlocked(other, String(id));
      const engineBlocked = engine.call(blocking);
      // Compared only once the whole step's span is known (TIME after the reader is released).
      const results: [readonly string[], Reply, Reply, (readonly (readonly string[])[])?][] = [];
      for (const waker of wakers) {
        if ('multi' in waker) {
          const replies = await other.pipeline([['MULTI'], ...waker.multi, ['EXEC']]);
          const exec = replies[replies.length - 1] ?? null;
          results.push([transactionArgv(waker.multi), exec, engine.exec(waker.multi), waker.multi]);
        } else {
          results.push([waker, await other.call(waker), engine.callSync(waker)]);
        }
      }
      results.push([blocking, await redisBlocked, await engineBlocked]);
      observeSpan(time, await other.call(['TIME']));
      for (const [argv, redis, engineReply, transaction] of results)
        compare(argv, redis, engineReply, transaction);
    },
    async cleanup() {
      const all = [...keys];
      for (let i = 0; i < all.length; i += 500) await server.call(['DEL', ...all.slice(i, i + 500)]);
    },
  };
}

/** How a transaction is named in a mismatch: `EXEC [cmd 1] [cmd 2]`. */
export function transactionArgv(commands: readonly (readonly string[])[]): string[] {
  return ['EXEC', ...commands.map((c) => `[${renderCommand(c)}]`)];
}

/** Polls CLIENT LIST until client `id` is blocked (flag b): a few round trips, no sleeping. */
async function waitUntilBlocked(other: RespClient, id: string): Promise<void> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const list = await other.call(['CLIENT', 'LIST', 'ID', id]);
    if (typeof list === 'string' && /\bflags=\w*b/.test(list)) return;
  }
  throw new Error(`client ${id} never blocked`);
}

/** A small seeded PRNG (mulberry32): the same seed gives the same command sequence. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [0, n). */
    int: (n: number): number => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance: (p: number): boolean => next() < p,
  };
}

/**
 * One scripted step: a command; a MULTI/EXEC transaction of several; or a blocking command
 * released by `wake` commands sent from a second connection.
 */
export type Step =
  | readonly string[]
  | { readonly multi: readonly (readonly string[])[] }
  | { readonly block: readonly string[]; readonly wake: readonly BatchItem[] };

/** A scripted sequence: built from a key-naming function so every run uses fresh keys. */
export type Scenario = (key: (name: string) => string) => readonly Step[];

/**
 * A known remaining difference, excused by step: `command` and `redis` are written with the session
 * prefix removed from key names (`XLEN s`, `-NOGROUP No such key 's' ...`) and wall-clock values
 * masked (`<time>`, `<duration>`, `<id>`). Redis must still answer exactly `redis` there; only the
 * engine's reply is excused.
 */
export interface ExpectedDifference {
  readonly step: number;
  readonly command: string;
  readonly redis: string;
  /** Why it differs, for the reader (and the engine engineers). */
  readonly why: string;
}

/**
 * Runs a scripted sequence step by step on both sides (clock synced before each step), deletes
 * its keys, and returns every mismatch rendered (an empty list means the engine answered exactly
 * like Redis throughout). A mismatch listed in `expected` is excused; an expected difference that
 * no longer occurs is reported too, so the list shrinks as the engine is fixed.
 */
export async function compareScenario(
  server: RespClient,
  scenario: Scenario,
  options: { expected?: readonly ExpectedDifference[]; second?: RespClient } = {},
): Promise<string[]> {
  const expected = options.expected ?? [];
  const session = createDiffSession(server);
  try {
    for (const step of scenario(session.key)) {
      if ('multi' in step) await session.runTransaction(step.multi);
      else if ('block' in step) {
        if (options.second === undefined) throw new Error('a blocking step needs a second connection');
        await session.runBlocked(step.block, step.wake, options.second);
      } else await session.run(step);
    }
  } finally {
    await session.cleanup();
  }
  const strip = (text: string) => text.split(session.prefix).join('');
  const problems: string[] = [];
  const used = new Set<ExpectedDifference>();
  for (const mismatch of session.mismatches) {
    const excuse = expected.find(
      (e) =>
        e.step === mismatch.step &&
        e.command === strip(renderCommand(mismatch.argv)) &&
        e.redis ===
          strip(
            renderReply(
              normaliseStep(mismatch.argv, mismatch.redis, session.runStart, mismatch.transaction),
              true,
            ),
          ),
    );
    if (excuse === undefined) problems.push(strip(renderMismatch(mismatch)));
    else used.add(excuse);
  }
  for (const e of expected) {
    if (!used.has(e))
      problems.push(`expected difference no longer occurs (remove it): step ${e.step}: ${e.command}`);
  }
  return problems;
}

/**
 * The seeds and length of a random differential run. `DIFF_SEED` replays one seed (with
 * `DIFF_STEPS` for the length); `DIFF_SEED_COUNT=n` explores the seeds `explore(1..n)` gives;
 * otherwise the suite's own `defaults` run.
 */
export function randomRunPlan(options: {
  defaults: readonly number[];
  steps: number;
  explore: (index: number) => readonly number[];
}): { seeds: number[]; steps: number; replaying: boolean } {
  const replay = process.env.DIFF_SEED;
  const exploreCount = Number(process.env.DIFF_SEED_COUNT ?? 0);
  const seeds =
    replay !== undefined
      ? [Number(replay)]
      : exploreCount > 0
        ? Array.from({ length: exploreCount }, (_, i) => options.explore(i + 1)).flat()
        : [...options.defaults];
  return { seeds, steps: Number(process.env.DIFF_STEPS ?? options.steps), replaying: replay !== undefined };
}

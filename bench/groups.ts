/**
 * Benchmark section "groups" (ordered message groups): messages/s of a queue whose messages spread
 * over 1,000 group keys against the same flow without keys, in interleaved rounds (ABBA): through
 * the HTTP API (`npm start`'s server on the in-process engine, in a process of its own), and for
 * the library alone over TCP to redis-server and on the in-process engine; then what one consume
 * (count 10) costs while one key holds a backlog of 1M messages, against the same queue without
 * that backlog, interleaved call by call.
 */
import { Redis } from 'ioredis';
import { createIoredisClient } from '../functions/support/ioredis-client.ts';
import { systemClock } from '../lib/clock.ts';
import { createEngine } from '../lib/engine/engine.ts';
import { createKeySpace } from '../lib/queue/keys.ts';
import { createQueueService } from '../lib/queue/service.ts';
import type { QueueService } from '../lib/queue/types.ts';
import type { RedisClient } from '../lib/redis/client.ts';
import { createEngineClient } from '../lib/redis/engine-client.ts';
import { BENCH_TOKEN, type ServerProcess, startServer } from './api/servers.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MESSAGES = Number(process.env.BENCH_GROUPS_MESSAGES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_GROUPS_ROUNDS ?? 4);
const KEYS = 1000;
const BATCH = 100;
const BACKLOG = Number(process.env.BENCH_GROUPS_BACKLOG ?? 1_000_000);
const CONSUMES = Number(process.env.BENCH_GROUPS_CONSUMES ?? 400);
const HTTP_MESSAGES = Number(process.env.BENCH_GROUPS_HTTP_MESSAGES ?? 20_000);
const THROUGHPUT_TARGET = 0.7;
const BACKLOG_TARGET = 1.5;

const body = { order: 42, items: ['a', 'b'] };

function unique(name: string): string {
  return `bench-${name}-${Math.random().toString(36).slice(2, 8)}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Messages/s of the produce → consume → ack flow, with or without group keys. */
async function flow(queue: QueueService, name: string, keyed: boolean, messages: number): Promise<number> {
  await queue.createGroup(name, 'g', '0');
  let next = 0;
  const started = performance.now();
  for (let done = 0; done < messages; ) {
    await queue.produce(
      name,
      Array.from({ length: BATCH }, () => {
        const n = next++;
        return keyed ? { body, groupKey: `key-${n % KEYS}` } : { body };
      }),
    );
    const got = await queue.consume(name, 'g', 'worker', BATCH);
    if (got.length === 0) throw new Error(`${name}: consume delivered nothing`);
    await queue.ack(
      name,
      'g',
      got.map((m) => m.id),
    );
    done += got.length;
  }
  const rate = messages / ((performance.now() - started) / 1000);
  await queue.deleteQueue(name);
  return rate;
}

/** Rounds in ABBA order (the variant measured second in a pair has run after the other's clean-up). */
async function throughput(queue: QueueService, messages: number): Promise<{ keyed: number; plain: number }> {
  const keyed: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [true, false] : [false, true];
    for (const withKeys of order) {
      const rate = await flow(queue, unique(withKeys ? 'keyed' : 'plain'), withKeys, messages);
      (withKeys ? keyed : plain).push(rate);
    }
  }
  return { keyed: median(keyed), plain: median(plain) };
}

/**
 * A queue holding messages of 1,000 keys (and, with `backlog`, one key with that many more), from
 * which consume (count 10) then ack run call by call against the other queue.
 */
async function fill(queue: QueueService, name: string, backlog: number): Promise<void> {
  await queue.createGroup(name, 'g', '0');
  for (let i = 0; i < backlog; i += 1000) {
    await queue.produce(
      name,
      Array.from({ length: Math.min(1000, backlog - i) }, () => ({ body, groupKey: 'busy' })),
    );
  }
  for (let i = 0; i < 2 * CONSUMES * 10; i += 1000) {
    await queue.produce(
      name,
      Array.from({ length: 1000 }, (_, j) => ({ body, groupKey: `key-${(i + j) % KEYS}` })),
    );
  }
}

async function backlogCost(queue: QueueService): Promise<{ busy: number; empty: number; held: number }> {
  const busy = unique('busy');
  const empty = unique('empty');
  await fill(queue, busy, BACKLOG);
  await fill(queue, empty, 0);
  const times = { [busy]: [] as number[], [empty]: [] as number[] };
  for (let i = 0; i < CONSUMES; i++) {
    for (const name of i % 2 === 0 ? [busy, empty] : [empty, busy]) {
      const started = performance.now();
      const got = await queue.consume(name, 'g', 'worker', 10);
      times[name]?.push(performance.now() - started);
      // Everything is acked, the busy key's messages too: it takes its turn every round.
      await queue.ack(
        name,
        'g',
        got.map((m) => m.id),
      );
    }
  }
  const held = (await queue.stats(busy)).groups[0]?.keyedWaiting ?? 0;
  await queue.deleteQueue(busy);
  await queue.deleteQueue(empty);
  return { busy: median(times[busy] ?? []), empty: median(times[empty] ?? []), held };
}

const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };

async function send(base: string, method: string, path: string, payload?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const post = (base: string, path: string, payload: unknown) => send(base, 'POST', path, payload);

interface HttpFlow {
  /** Messages produced, consumed and acked per second, over both phases. */
  rate: number;
  /** The server process's CPU time per message, µs. */
  cpuUs: number;
}

interface HttpShape {
  messages: number;
  producers: number;
  perProduce: number;
  count: number;
}

/**
 * Through the HTTP API, a fixed amount of work: `producers` apps post `shape.messages` messages,
 * `perProduce` a request (with keys: message n has groupKey `key-<n mod 1000>`), then 4 workers
 * consume `count` a request and ack what they got until every message is acked.
 */
async function httpRun(server: ServerProcess, keyed: boolean, shape: HttpShape): Promise<HttpFlow> {
  const queue = `/v1/queues/${unique(keyed ? 'keyed' : 'plain')}`;
  await send(server.url, 'PUT', `${queue}/groups/g`, { start: '0' });
  let next = 0;
  let acked = 0;
  const producer = async () => {
    while (next < shape.messages) {
      const size = Math.min(shape.perProduce, shape.messages - next);
      const messages = Array.from({ length: size }, () => {
        const n = next++;
        return keyed ? { body, groupKey: `key-${n % KEYS}` } : { body };
      });
      await post(server.url, `${queue}/messages`, { messages });
    }
  };
  const deadline = Date.now() + 120_000;
  const worker = async (name: string) => {
    while (acked < shape.messages) {
      if (Date.now() > deadline) throw new Error(`${queue}: ${acked} of ${shape.messages} acked in 120 s`);
      const { messages } = (await post(server.url, `${queue}/groups/g/consume`, {
        consumer: name,
        count: shape.count,
      })) as { messages: { id: string }[] };
      if (messages.length === 0) continue;
      const result = (await post(server.url, `${queue}/groups/g/ack`, {
        ids: messages.map((m) => m.id),
      })) as { acked: number };
      acked += result.acked;
    }
  };
  const cpuBefore = await server.cpuMs();
  const started = performance.now();
  await Promise.all(Array.from({ length: shape.producers }, () => producer()));
  await Promise.all(Array.from({ length: 4 }, (_, i) => worker(`w${i}`)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await server.cpuMs()) - cpuBefore;
  await send(server.url, 'DELETE', queue);
  return { rate: shape.messages / seconds, cpuUs: (cpu * 1000) / shape.messages };
}

/** Keyed and plain HTTP runs in ABBA rounds on one server; medians. */
async function httpCompare(
  server: ServerProcess,
  shape: HttpShape,
): Promise<{ keyed: HttpFlow; plain: HttpFlow }> {
  const runs: Record<'keyed' | 'plain', HttpFlow[]> = { keyed: [], plain: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const keyed of round % 2 === 0 ? [true, false] : [false, true]) {
      runs[keyed ? 'keyed' : 'plain'].push(await httpRun(server, keyed, shape));
    }
  }
  const pick = (list: HttpFlow[]) => ({
    rate: median(list.map((r) => r.rate)),
    cpuUs: median(list.map((r) => r.cpuUs)),
  });
  return { keyed: pick(runs.keyed), plain: pick(runs.plain) };
}

function service(redis: RedisClient, prefix: string): QueueService {
  return createQueueService({ redis, clock: systemClock, keyPrefix: prefix });
}

export async function run(): Promise<string> {
  const connection = new Redis(REDIS_URL);
  const prefix = unique('groups');
  const server = await startServer('api');
  let serving = true;
  try {
    const single = await httpCompare(server, {
      messages: HTTP_MESSAGES / 4,
      producers: 12,
      perProduce: 1,
      count: 10,
    });
    const batched = await httpCompare(server, {
      messages: HTTP_MESSAGES,
      producers: 2,
      perProduce: 100,
      count: 100,
    });
    await server.stop();
    serving = false;
    const overTcp = service(createIoredisClient(connection), prefix);
    const tcp = await throughput(overTcp, MESSAGES);
    const engineMessages = Math.min(MESSAGES, 10_000);
    const engine = await throughput(service(createEngineClient(createEngine()), prefix), engineMessages);
    const backlog = await backlogCost(overTcp);
    const keys = createKeySpace(prefix);
    await connection.unlink(keys.registry, keys.sweepCursor);
    const tcpRatio = tcp.keyed / tcp.plain;
    const engineRatio = engine.keyed / engine.plain;
    const backlogRatio = backlog.busy / backlog.empty;
    const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
    const httpRow = (label: string, r: { keyed: HttpFlow; plain: HttpFlow }) => {
      const ratio = r.keyed.rate / r.plain.rate;
      return `| ${label} | ${Math.round(r.keyed.rate).toLocaleString('en')} | ${Math.round(r.plain.rate).toLocaleString('en')} | ${ratio.toFixed(2)} | ${verdict(ratio >= THROUGHPUT_TARGET)} | ${Math.round(r.keyed.cpuUs)} / ${Math.round(r.plain.cpuUs)} |`;
    };
    return [
      '## groups',
      '',
      '`npm run bench -- groups` (bench/groups.ts): ordered message groups (issue 15).',
      '',
      `Through the HTTP API: \`npm start\`'s server on the in-process engine in a process of its own, driven from the bench process.`,
      `Each run produces its messages, then 4 workers consume and ack until all are acked; keyed: message n has groupKey`,
      `\`key-<n mod ${KEYS}>\`. ${ROUNDS} runs per variant in ABBA order; medians of messages/s over the whole run and of the`,
      "server's CPU time per message (the figure other load moves least).",
      '',
      `| flow | ${KEYS.toLocaleString('en')} keys, msgs/s | no keys, msgs/s | ratio | ≥ ${THROUGHPUT_TARGET}x | server CPU µs/msg, keys / none |`,
      '|---|---:|---:|---:|---|---:|',
      httpRow(
        `${(HTTP_MESSAGES / 4).toLocaleString('en')} messages, 12 apps producing 1 a request; workers consuming 10`,
        single,
      ),
      httpRow(
        `${HTTP_MESSAGES.toLocaleString('en')} messages, 2 apps producing 100 a request; workers consuming 100`,
        batched,
      ),
      '',
      "The library alone (no HTTP), where the key lines' own cost shows most:",
      `produce (batch ${BATCH}) → consume (count ${BATCH}) → ack in one loop, ${MESSAGES.toLocaleString('en')} messages a run over TCP`,
      `(${engineMessages.toLocaleString('en')} on the engine), keyed: message n has groupKey \`key-<n mod ${KEYS}>\`; median of ${ROUNDS} runs`,
      'per variant, in ABBA order, one process, on the shared redis-server (127.0.0.1:6379) and on the in-process engine.',
      '',
      `| backend | ${KEYS.toLocaleString('en')} keys, msgs/s | no keys, msgs/s | ratio | ≥ ${THROUGHPUT_TARGET}x |`,
      '|---|---:|---:|---:|---|',
      `| redis-server over TCP | ${Math.round(tcp.keyed).toLocaleString('en')} | ${Math.round(tcp.plain).toLocaleString('en')} | ${tcpRatio.toFixed(2)} | ${verdict(tcpRatio >= THROUGHPUT_TARGET)} |`,
      `| in-process engine | ${Math.round(engine.keyed).toLocaleString('en')} | ${Math.round(engine.plain).toLocaleString('en')} | ${engineRatio.toFixed(2)} | ${verdict(engineRatio >= THROUGHPUT_TARGET)} |`,
      '',
      `Consume cost against a busy key's backlog: two queues with ${(2 * CONSUMES * 10).toLocaleString('en')} messages over ${KEYS.toLocaleString('en')} keys, one of them`,
      `with ${BACKLOG.toLocaleString('en')} more messages of one key; ${CONSUMES} consumes (count 10, each followed by an untimed ack of all it got, the busy`,
      'key included, so it takes its turn every round) per queue, alternating between the queues; median wall time per consume over TCP.',
      '',
      '| queue | median consume (count 10) |',
      '|---|---:|',
      `| one key with a ${BACKLOG.toLocaleString('en')} backlog (${backlog.held.toLocaleString('en')} waiting at the end) | ${backlog.busy.toFixed(3)} ms |`,
      `| no backlog | ${backlog.empty.toFixed(3)} ms |`,
      '',
      `Backlog / none: **${backlogRatio.toFixed(2)}x** (target ≤ ${BACKLOG_TARGET}x: ${verdict(backlogRatio <= BACKLOG_TARGET)}).`,
      '',
      'Why the two HTTP flows differ: a keyed message goes one of two ways (docs/queue-design.md, "Ordered message',
      'groups"). While consumers keep up, produce finds each key idle and reserves the message: it stays in the stream and',
      'XREADGROUP delivers it, at close to the unkeyed cost (the first flow, and the library rows). A standing backlog (the',
      "second flow produces all 20,000 before any consume, 20 per key) waits in the keys' lines and each message is",
      "claimed with XCLAIM, which costs Redis 7.0.15 about 7 µs an entry against XREADGROUP's 1.5 µs (100 entries: 705",
      "vs 153 µs, `INFO commandstats` on a redis-server of its own), plus the key lines' bookkeeping in Lua.",
      'What the steps bought (library over TCP, same machine, single runs): a sorted-set line per key 0.44x; linked',
      'lists in one hash with batched reads and writes 0.49x; reservations 0.62x; a single-message line released in',
      'one HDEL 0.76x.',
    ].join('\n');
  } finally {
    if (serving) await server.stop();
    connection.disconnect();
  }
}

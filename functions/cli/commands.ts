/**
 * The `esq` commands, each a few calls of the client (lib/client): produce (one body, or JSON
 * lines from stdin in batches with a progress line), consume, tail, stats, dlq, sweep. They read
 * parsed arguments and write through `Io`, so the entry point (esq.ts) only wires up the process.
 */
import { parseArgs } from 'node:util';
import {
  createQueueClient,
  type MessageInput,
  QueueApiError,
  type QueueClient,
} from '../../lib/client/index.ts';
import { CALL_RULES, DEFAULT_LIMITS } from '../../lib/queue/rules.ts';
import { duration, progressLine, table } from './format.ts';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Lines of stdin with their size in bytes; undefined when stdin is a terminal. */
  stdinLines?: () => AsyncIterable<{ line: string; bytes: number }>;
  /** The size of stdin when it is a regular file (a progress bar can show a share of it). */
  stdinBytes?: number;
  /** Whether the progress line may redraw (stderr is a terminal). */
  stderrIsTTY: boolean;
  now(): number;
}

/** Wrong arguments: exit code 2, with the usage hint. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `esq — the edge-stream-queue command line

Usage: esq [--url URL] [--token TOKEN] <command> [arguments]

  produce <queue> [<json-body>]     produce one message, or JSON lines read from stdin
        [--dedup-id ID] [--delay MS] [--attr name=value]...   (--dedup-id for one message only)
        [--group-key KEY]   in order with the other messages of KEY (ordered message groups)
        [--messages]   each stdin line is a message object {"body", "dedupId"?, "delayMs"?, "attributes"?, "groupKey"?}
        [--progress]   draw the progress line even when stderr is not a terminal
  consume <queue> <group> [--consumer NAME] [--count N] [--wait MS] [--ack]
        print up to N messages as JSON lines; --ack acks them after printing
  tail <queue> [--from ID | --all] [--interval MS] [--limit N]
        print messages as they are produced (from now, from ID, or from the start)
  stats [<queue>] [--json]          queues, their groups, pending, lag and dead letters
  dlq list <queue> [--count N] [--cursor ID] [--json]
  dlq redrive <queue> (<id>... | --all)
  dlq purge <queue>
  sweep [--json]                    run the sweep now

  --url, --token    or ESQ_URL, ESQ_TOKEN
Exit codes: 0 done, 1 the API or the network failed (its message is printed), 2 wrong usage.`;

const options = {
  url: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  'dedup-id': { type: 'string' },
  'group-key': { type: 'string' },
  delay: { type: 'string' },
  attr: { type: 'string', multiple: true },
  messages: { type: 'boolean' },
  progress: { type: 'boolean' },
  consumer: { type: 'string' },
  count: { type: 'string' },
  wait: { type: 'string' },
  ack: { type: 'boolean' },
  from: { type: 'string' },
  all: { type: 'boolean' },
  interval: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

function integer(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${what} is not JSON: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`);
  }
}

function attributes(pairs: string[] | undefined): Record<string, string> | undefined {
  if (pairs === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--attr takes name=value, not ${pair}`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

function need(positionals: string[], count: number, usage: string): string[] {
  if (positionals.length < count) throw new UsageError(`usage: esq ${usage}`);
  return positionals;
}

/** A batch's size on the wire, so bulk produce stays well inside the service's 1 MiB request limit. */
const BATCH_BYTES = DEFAULT_LIMITS.maxRequestBytes / 2;

async function produce(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [queue, bodyText] = need(args, 1, 'produce <queue> [<json-body>]');
  const q = client.queue(queue!);
  const delayMs = integer('delay', values.delay, CALL_RULES.delayMs.min, CALL_RULES.delayMs.max);
  const attrs = attributes(values.attr);
  const groupKey = values['group-key'];
  const shape = (message: MessageInput): MessageInput => ({
    ...message,
    ...(delayMs === undefined ? {} : { delayMs }),
    ...(groupKey === undefined ? {} : { groupKey }),
    ...(attrs === undefined ? {} : { attributes: { ...message.attributes, ...attrs } }),
  });

  if (bodyText !== undefined) {
    const message: MessageInput = { body: parseJson(bodyText, 'the body') as MessageInput['body'] };
    if (values['dedup-id'] !== undefined) message.dedupId = values['dedup-id'];
    for (const id of await q.produce([shape(message)])) io.stdout(`${id}\n`);
    return;
  }
  if (io.stdinLines === undefined) throw new UsageError('give a JSON body, or pipe JSON lines into stdin');
  if (values['dedup-id'] !== undefined) {
    throw new UsageError('--dedup-id names one message; with stdin, use --messages and a dedupId per line');
  }

  const showProgress = values.progress === true || io.stderrIsTTY;
  const started = io.now();
  const done = { bytes: 0, messages: 0 };
  let lastDraw = 0;
  const draw = (final: boolean) => {
    if (!showProgress) return;
    const now = io.now();
    if (!final && now - lastDraw < 100) return;
    lastDraw = now;
    io.stderr(`\r${progressLine(done, io.stdinBytes, now - started)}${final ? '\n' : ''}`);
  };

  let batch: MessageInput[] = [];
  let batchBytes = 0;
  let readBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    let ids: string[];
    try {
      ids = await q.produce(batch);
    } catch (error) {
      draw(true);
      io.stderr(
        `esq: ${done.messages} messages were produced before the failing batch of ${batch.length} (lines ${done.messages + 1}-${done.messages + batch.length})\n`,
      );
      throw error;
    }
    for (const id of ids) io.stdout(`${id}\n`);
    done.messages += batch.length;
    done.bytes = readBytes;
    batch = [];
    batchBytes = 0;
    draw(false);
  };

  let lineNumber = 0;
  for await (const { line, bytes } of io.stdinLines()) {
    lineNumber++;
    readBytes += bytes;
    if (line.trim() === '') continue;
    const parsed = parseJson(line, `line ${lineNumber}`);
    let message: MessageInput;
    if (values.messages === true) {
      if (typeof parsed !== 'object' || parsed === null || !('body' in parsed)) {
        throw new UsageError(`line ${lineNumber} is not a message object with a body`);
      }
      message = parsed as MessageInput;
    } else {
      message = { body: parsed as MessageInput['body'] };
    }
    batch.push(shape(message));
    batchBytes += bytes;
    if (batch.length >= CALL_RULES.batch.max || batchBytes >= BATCH_BYTES) await flush();
  }
  await flush();
  done.bytes = readBytes;
  draw(true);
  io.stderr(`produced ${done.messages} messages to ${q.name}\n`);
}

async function consume(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [queue, groupName] = need(args, 2, 'consume <queue> <group> [--ack]');
  const g = client.queue(queue!).group(groupName!);
  const consumer = values.consumer ?? `esq-${crypto.randomUUID().slice(0, 8)}`;
  const count = integer('count', values.count, CALL_RULES.count.min, CALL_RULES.count.max) ?? 10;
  const waitMs = integer('wait', values.wait, CALL_RULES.waitMs.min, CALL_RULES.waitMs.max) ?? 0;
  const messages = await g.consume({ consumer, count, waitMs });
  for (const message of messages) io.stdout(`${JSON.stringify(message)}\n`);
  if (messages.length === 0) {
    io.stderr('no messages\n');
  } else if (values.ack === true) {
    const acked = await g.ack(messages.map((message) => message.id));
    io.stderr(`acked ${acked}\n`);
  } else {
    io.stderr(
      `leased ${messages.length} as ${consumer}, not acked: they come back after the visibility timeout (--ack acks them)\n`,
    );
  }
}

async function tail(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [queue] = need(args, 1, 'tail <queue> [--from ID | --all]');
  const q = client.queue(queue!);
  const intervalMs = integer('interval', values.interval, 10, 60_000) ?? 500;
  const limit = integer('limit', values.limit, 1, Number.MAX_SAFE_INTEGER);
  // Stream ids start with the time they were added, so "from now" is a bare millisecond bound.
  let start = values.all === true ? '-' : (values.from ?? String(io.now()));
  let printed = 0;
  for (;;) {
    const messages = await q.browse({ start, count: 100 });
    for (const message of messages) {
      io.stdout(`${JSON.stringify(message)}\n`);
      if (limit !== undefined && ++printed >= limit) return;
    }
    const last = messages.at(-1);
    if (last !== undefined) start = `(${last.id}`;
    else await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

async function stats(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [queue] = args;
  const list = queue === undefined ? await client.queues() : [await client.queue(queue).stats()];
  if (values.json === true) {
    io.stdout(`${JSON.stringify(queue === undefined ? list : list[0], null, 2)}\n`);
    return;
  }
  if (list.length === 0) {
    io.stdout('no queues\n');
    return;
  }
  const rows: (string | number)[][] = [];
  for (const s of list) {
    const groups = s.groups.length === 0 ? [undefined] : s.groups;
    for (const g of groups) {
      rows.push([
        s.name,
        s.length,
        s.delayed,
        s.deadLetters,
        g?.name ?? '-',
        g?.pending ?? '-',
        g === undefined ? '-' : (g.lag ?? '?'),
        g?.consumers ?? '-',
        g === undefined ? '-' : duration(g.oldestPendingAgeMs),
      ]);
    }
  }
  io.stdout(
    `${table(['QUEUE', 'LENGTH', 'DELAYED', 'DLQ', 'GROUP', 'PENDING', 'LAG', 'CONSUMERS', 'OLDEST PENDING'], rows)}\n`,
  );
}

async function dlq(client: QueueClient, args: string[], values: Values, io: Io): Promise<void> {
  const [sub, queue, ...ids] = need(args, 2, 'dlq list|redrive|purge <queue>');
  const q = client.queue(queue!);
  if (sub === 'list') {
    const count = integer('count', values.count, CALL_RULES.count.min, CALL_RULES.count.max);
    const page = await q.dlq.list({
      ...(count === undefined ? {} : { count }),
      ...(values.cursor === undefined ? {} : { cursor: values.cursor }),
    });
    if (values.json === true) {
      for (const letter of page.deadLetters) io.stdout(`${JSON.stringify(letter)}\n`);
    } else if (page.deadLetters.length === 0) {
      io.stdout('no dead letters\n');
    } else {
      const rows = page.deadLetters.map((d) => {
        const body = JSON.stringify(d.body) ?? 'null';
        return [
          d.id,
          d.deadLetteredFrom,
          d.group,
          d.deliveries,
          d.reason,
          new Date(d.deadLetteredAt).toISOString(),
          body.length > 50 ? `${body.slice(0, 50)}…` : body,
        ];
      });
      io.stdout(`${table(['ID', 'FROM', 'GROUP', 'DELIVERIES', 'REASON', 'DEAD-LETTERED', 'BODY'], rows)}\n`);
    }
    if (page.cursor !== null) io.stderr(`more: esq dlq list ${q.name} --cursor ${page.cursor}\n`);
    return;
  }
  if (sub === 'redrive') {
    if ((values.all === true) === ids.length > 0) {
      throw new UsageError('usage: esq dlq redrive <queue> (<id>... | --all)');
    }
    const redriven = await q.dlq.redrive(values.all === true ? { all: true } : ids);
    io.stdout(`redriven ${redriven}\n`);
    return;
  }
  if (sub === 'purge') {
    io.stdout(`purged ${await q.dlq.purge()}\n`);
    return;
  }
  throw new UsageError(`unknown dlq command "${sub}": list, redrive or purge`);
}

async function sweep(client: QueueClient, _args: string[], values: Values, io: Io): Promise<void> {
  const report = await client.sweep();
  if (values.json === true) {
    io.stdout(`${JSON.stringify(report)}\n`);
    return;
  }
  io.stdout(
    `${table(
      ['', ''],
      Object.entries(report).map(([key, value]) => [key, String(value)]),
    )}\n`,
  );
}

const commands = { produce, consume, tail, stats, dlq, sweep } as const;

/** How an error reads on stderr: the API's message, its code and status, and validation issues. */
export function describeError(error: unknown): string {
  if (!(error instanceof QueueApiError)) return error instanceof Error ? error.message : String(error);
  const where = error.status === 0 ? error.code : `${error.code}, HTTP ${error.status}`;
  const lines = [`${error.message} (${where})`];
  const issues = (error.details as { issues?: { path: string[]; message: string }[] } | undefined)?.issues;
  for (const issue of issues ?? []) lines.push(`  ${issue.path.join('.') || '(body)'}: ${issue.message}`);
  const hint = (error.details as { hint?: unknown } | undefined)?.hint;
  if (typeof hint === 'string') lines.push(`  hint: ${hint}`);
  return lines.join('\n');
}

/**
 * Runs one `esq` command line; resolves with the exit code.
 * @example process.exitCode = await runCli(process.argv.slice(2), process.env, io);
 */
export async function runCli(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
  io: Io,
): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const [name, ...args] = positionals;
    if (values.help === true || name === undefined || name === 'help') {
      io.stdout(`${USAGE}\n`);
      return name === undefined && values.help !== true ? 2 : 0;
    }
    if (!Object.hasOwn(commands, name)) throw new UsageError(`unknown command "${name}"`);
    const url = values.url ?? env.ESQ_URL;
    if (url === undefined || url === '') throw new UsageError('no service URL: pass --url or set ESQ_URL');
    const token = values.token ?? env.ESQ_TOKEN;
    const client = createQueueClient({ url, ...(token === undefined || token === '' ? {} : { token }) });
    await commands[name as keyof typeof commands](client, args, values, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      // parseArgs reports unknown or malformed options as a TypeError with an ERR_PARSE_ARGS_* code.
      io.stderr(`esq: ${error.message}\nRun esq --help for the commands.\n`);
      return 2;
    }
    io.stderr(`esq: ${describeError(error)}\n`);
    return 1;
  }
}

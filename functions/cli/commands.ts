/**
 * The `esq` commands, each a few calls of the client (lib/client): produce (one body, or JSON
 * lines from stdin in batches with a progress line), consume, tail, stats, dlq, sweep, and the
 * administration commands of admin.ts. They read parsed arguments and write through `Io`, so the
 * entry point (esq.ts) only wires up the process.
 */
import { parseArgs } from 'node:util';
import {
  ClientErrorCode,
  createQueueClient,
  type MessageInput,
  QueueApiError,
  type QueueClient,
  type QueueStats,
} from '../../lib/client/index.ts';
import { CALL_RULES, CONFIG_FIELD_NAMES, DEFAULT_LIMITS } from '../../lib/queue/rules.ts';
import { adminCommands, Cancelled } from './admin.ts';
import {
  confirmed,
  type Io,
  integer,
  need,
  noMore,
  options,
  parseJson,
  UsageError,
  type Values,
} from './args.ts';
import { cancelCommands } from './cancel.ts';
import { duration, progressLine, table } from './format.ts';
import { COMMANDS, helpFor, USAGE } from './help.ts';

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

/**
 * A group's rate limit window: deliveries in it, `throttled` while the rateLimit holds deliveries
 * back, and the keys the keyRateLimit holds ('-' from a server without rate limits).
 */
function rateText(g: QueueStats['groups'][number]): string {
  if (typeof g.rateLimitUsed !== 'number') return '-';
  const held = g.throttledKeys > 0 ? ` ${g.throttledKeys} keys held` : '';
  return `${g.rateLimitUsed}${g.rateLimitThrottled ? ' throttled' : ''}${held}`;
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
        g === undefined ? '-' : rateText(g),
      ]);
    }
  }
  io.stdout(
    `${table(['QUEUE', 'LENGTH', 'DELAYED', 'DLQ', 'GROUP', 'PENDING', 'LAG', 'CONSUMERS', 'OLDEST PENDING', 'RATE WINDOW'], rows)}\n`,
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
    noMore(args, 2, 'dlq purge <queue> [--yes]');
    if (!(await confirmed(`This deletes every dead letter of ${q.name}`, values, io))) throw new Cancelled();
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

const commands = { produce, consume, tail, stats, dlq, sweep, ...adminCommands, ...cancelCommands } as const;

/** A network failure before anything was sent (refused, no such host): no use trying again at once. */
const nothingSent = (error: QueueApiError) =>
  error.code === ClientErrorCode.network && !error.mayHaveBeenApplied;

/** What the command line knew when the call failed, for the hint it prints. */
export interface ErrorContext {
  url?: string;
  /** Whether a token was given (--token or ESQ_TOKEN). */
  token?: boolean;
}

/** How an error reads on stderr: the API's message, its code and status, validation issues, a hint. */
export function describeError(error: unknown, context: ErrorContext = {}): string {
  if (!(error instanceof QueueApiError)) return error instanceof Error ? error.message : String(error);
  const where = error.status === 0 ? error.code : `${error.code}, HTTP ${error.status}`;
  const lines = [`${error.message} (${where})`];
  const issues = (error.details as { issues?: { path: string[]; message: string }[] } | undefined)?.issues;
  for (const issue of issues ?? []) lines.push(`  ${issue.path.join('.') || '(body)'}: ${issue.message}`);
  const hint = (error.details as { hint?: unknown } | undefined)?.hint;
  if (typeof hint === 'string') lines.push(`  hint: ${hint}`);
  if (nothingSent(error)) {
    lines.push(`  hint: is the service running at ${context.url ?? 'that URL'}? Pass --url or set ESQ_URL`);
  } else if (error.status === 401) {
    lines.push(
      context.token === true
        ? '  hint: the service refused this token; check --token or ESQ_TOKEN'
        : '  hint: no token was given; set ESQ_TOKEN (or pass --token) to one of the service’s API_TOKENS (npm start prints a development token)',
    );
  }
  return lines.join('\n');
}

/** The help asked for: `esq help <command>`, `esq <command> --help`, or the overview. */
function help(words: string[]): string {
  return helpFor(words, CONFIG_FIELD_NAMES) ?? USAGE;
}

/**
 * Runs one `esq` command line; resolves with the exit code. `version` is what --version prints.
 * @example process.exitCode = await runCli(process.argv.slice(2), process.env, io, '0.1.0');
 */
export async function runCli(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
  io: Io,
  version = 'unknown',
): Promise<number> {
  const context: ErrorContext = {};
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const [name, ...args] = positionals;
    if (values.version === true || name === 'version') {
      io.stdout(`esq ${version}\n`);
      return 0;
    }
    if (name === 'help') {
      io.stdout(`${help(args)}\n`);
      return args.length === 0 || helpFor(args, CONFIG_FIELD_NAMES) !== undefined ? 0 : 2;
    }
    if (values.help === true || name === undefined) {
      io.stdout(`${help(positionals)}\n`);
      return name === undefined && values.help !== true ? 2 : 0;
    }
    if (!Object.hasOwn(commands, name)) {
      throw new UsageError(`unknown command "${name}"; the commands: ${COMMANDS.join(', ')}`);
    }
    const url = values.url ?? env.ESQ_URL;
    if (url === undefined || url === '') throw new UsageError('no service URL: pass --url or set ESQ_URL');
    if (!URL.canParse(url)) throw new UsageError(`the service URL is not a URL: ${url}`);
    const token = values.token ?? env.ESQ_TOKEN;
    context.url = url;
    context.token = token !== undefined && token !== '';
    const client = createQueueClient({
      url,
      ...(token === undefined || token === '' ? {} : { token }),
      ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
      // A refused connection is told at once; failures a retry may fix (503, 429, a lost answer)
      // are retried as the client's policy says.
      shouldRetry: (error) => !nothingSent(error),
    });
    await commands[name as keyof typeof commands](client, args, values, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      // parseArgs reports unknown or malformed options as a TypeError with an ERR_PARSE_ARGS_* code.
      io.stderr(`esq: ${error.message}\nRun esq --help for the commands.\n`);
      return 2;
    }
    if (error instanceof Cancelled) return 1;
    io.stderr(`esq: ${describeError(error, context)}\n`);
    return 1;
  }
}

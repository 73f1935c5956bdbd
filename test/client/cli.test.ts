/**
 * `esq` as a child process (bin/esq.mjs, and `npx esq` as a user runs it) against `npm start`
 * running as a process of its own: every command's output and exit code, stdin bulk produce with
 * its progress bar, and the API's error messages with exit code 1 (2 for wrong usage).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient, type QueueClient } from '../../lib/client/index.ts';
import {
  type Child,
  freePort,
  projectRoot,
  startChild,
  waitForReady,
} from '../runtimes/support/processes.ts';
import { uniqueName } from './support/service.ts';

const token = 'cli-admin-token';
let server: Child | undefined;
let url: string;
let client: QueueClient;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'esq-'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = startChild(
    process.execPath,
    [join(projectRoot, 'node_modules/tsx/dist/cli.mjs'), 'functions/node.ts'],
    {
      PORT: String(port),
      API_TOKENS: `admin:${token}`,
      ENGINE_DATA_FILE: '',
      SWEEP_INTERVAL_MS: '0',
      UPSTASH_REDIS_REST_URL: undefined,
      NODE_ENV: undefined,
    },
  );
  await waitForReady(`${url}/healthz`, server, 60_000);
  client = createQueueClient({ url, token });
}, 90_000);

afterAll(async () => {
  await server?.kill();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs esq with ESQ_URL/ESQ_TOKEN set (unless `env` says otherwise); stdin from a file or empty. */
async function esq(
  args: string[],
  options: { env?: Record<string, string | undefined>; stdinFile?: string; command?: string[] } = {},
): Promise<Ran> {
  const stdin = options.stdinFile === undefined ? 'ignore' : await open(options.stdinFile, 'r');
  const [command, ...prefix] = options.command ?? [process.execPath, join(projectRoot, 'bin/esq.mjs')];
  const child = spawn(command!, [...prefix, ...args], {
    cwd: projectRoot,
    env: { ...process.env, ESQ_URL: url, ESQ_TOKEN: token, ...options.env },
    stdio: [typeof stdin === 'string' ? stdin : stdin.fd, 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  if (typeof stdin !== 'string') await stdin.close();
  return { code, stdout, stderr };
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('esq', () => {
  it('runs as `npx esq` and prints its usage', async () => {
    const ran = await esq(['--help'], { command: ['npx', 'esq'] });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Usage: esq [--url URL] [--token TOKEN] <command>');
    expect(ran.stdout).toContain('dlq redrive <queue>');
  }, 60_000);

  it('produces a JSON body given as an argument, with attributes and a dedupId', async () => {
    const queue = uniqueName('cli-one');
    const ran = await esq([
      'produce',
      queue,
      '{"sku":42}',
      '--attr',
      'tenant=acme',
      '--dedup-id',
      'order-42',
    ]);
    expect(ran.code).toBe(0);
    const [id] = lines(ran.stdout);
    expect(id).toMatch(/^\d+-\d+$/);
    const again = await esq(['produce', queue, '{"sku":42}', '--dedup-id', 'order-42']);
    expect(lines(again.stdout)).toEqual([id]);
    expect(await client.queue(queue).browse()).toMatchObject([
      { id, body: { sku: 42 }, attributes: { tenant: 'acme' } },
    ]);
  });

  it('produces messages with a group key, delivered one of the key at a time', async () => {
    const queue = uniqueName('cli-keyed');
    const q = client.queue(queue);
    await q.group('g').create({ start: '0' });
    for (const body of ['1', '2']) {
      expect((await esq(['produce', queue, body, '--group-key', 'account-7'])).code).toBe(0);
    }
    const got = await q.group('g').consume({ consumer: 'w', count: 10 });
    expect(got.map((m) => [m.body, m.groupKey])).toEqual([[1, 'account-7']]);
  });

  it('produces JSON lines from stdin in batches, in order, with a progress bar', async () => {
    const queue = uniqueName('cli-bulk');
    const file = join(dir, 'bulk.jsonl');
    await writeFile(file, `${Array.from({ length: 2500 }, (_, i) => JSON.stringify({ n: i })).join('\n')}\n`);
    const ran = await esq(['produce', queue, '--progress'], { stdinFile: file });
    expect(ran.code).toBe(0);
    expect(lines(ran.stdout)).toHaveLength(2500);
    expect(ran.stderr).toContain('[##############################] 100%  2,500 messages');
    expect(ran.stderr).toContain(`produced 2500 messages to ${queue}`);
    const first = await client.queue(queue).browse({ count: 3 });
    expect(first.map((m) => m.body)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    expect((await client.queue(queue).stats()).length).toBe(2500);
  });

  it('takes whole message objects from stdin with --messages', async () => {
    const queue = uniqueName('cli-objects');
    const file = join(dir, 'objects.jsonl');
    await writeFile(
      file,
      '{"body":"a","dedupId":"x"}\n{"body":"b","attributes":{"k":"v"}}\n{"body":"c","dedupId":"x"}\n',
    );
    const ran = await esq(['produce', queue, '--messages'], { stdinFile: file });
    expect(ran.code).toBe(0);
    const ids = lines(ran.stdout);
    expect(ids[2]).toBe(ids[0]);
    expect((await client.queue(queue).browse()).map((m) => [m.body, m.attributes])).toEqual([
      ['a', {}],
      ['b', { k: 'v' }],
    ]);
  });

  it('consumes as JSON lines, acking with --ack and leaving them leased without', async () => {
    const queue = uniqueName('cli-consume');
    const q = client.queue(queue);
    const ids = await q.produce([{ body: 1 }, { body: 2 }, { body: 3 }]);
    await q.group('g').create({ start: '0' });
    const leased = await esq(['consume', queue, 'g', '--count', '1', '--consumer', 'peek']);
    expect(leased.code).toBe(0);
    expect(JSON.parse(lines(leased.stdout)[0]!)).toMatchObject({ id: ids[0], body: 1, deliveries: 1 });
    expect(leased.stderr).toContain('leased 1 as peek, not acked');
    const acked = await esq(['consume', queue, 'g', '--count', '5', '--ack']);
    expect(acked.code).toBe(0);
    expect(lines(acked.stdout).map((line) => JSON.parse(line).id)).toEqual(ids.slice(1));
    expect(acked.stderr).toContain('acked 2');
    expect(await q.group('g').pending()).toMatchObject({
      pending: 1,
      consumers: [{ name: 'peek', pending: 1 }],
    });
    const none = await esq(['consume', queue, 'g']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain('no messages');
  });

  it('cancels messages, saying which were already cancelled, and exits 1 naming an unknown id', async () => {
    const queue = uniqueName('cli-cancel');
    const q = client.queue(queue);
    const ids = await q.produce([{ body: 1 }, { body: 2 }, { body: 3 }]);
    await q.group('g').create({ start: '0' });
    await q.group('g').consume({ consumer: 'w', count: 1 });
    const first = await esq(['cancel', queue, ids[0]!, ids[1]!]);
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toEqual([
      `cancelled ${ids[0]} (in flight in 1 group(s): its holders stop at their next heartbeat)`,
      `cancelled ${ids[1]}`,
    ]);
    const again = await esq(['cancel', queue, ids[1]!, '1-1']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe(`${ids[1]} was already cancelled\n`);
    expect(again.stderr).toContain(`${queue} has no message 1-1`);
    expect((await q.group('g').consume({ consumer: 'w', count: 5 })).map((m) => m.id)).toEqual([ids[2]]);
  });

  it('tails new messages as they are produced', async () => {
    const queue = uniqueName('cli-tail');
    const q = client.queue(queue);
    await q.produce([{ body: 'before' }]);
    const tailing = esq(['tail', queue, '--limit', '2', '--interval', '50']);
    // tail starts at its own "now"; give it a moment to take its first look.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await q.produce([{ body: 'first' }, { body: 'second' }]);
    const ran = await tailing;
    expect(ran.code).toBe(0);
    expect(lines(ran.stdout).map((line) => JSON.parse(line).body)).toEqual(['first', 'second']);
    const all = await esq(['tail', queue, '--all', '--limit', '3']);
    expect(lines(all.stdout).map((line) => JSON.parse(line).body)).toEqual(['before', 'first', 'second']);
  });

  it('shows stats as a table, and as JSON with --json', async () => {
    const queue = uniqueName('cli-stats');
    const q = client.queue(queue);
    await q.produce([{ body: 1 }, { body: 2 }]);
    await q.group('billing').create({ start: '0' });
    await q.group('billing').consume({ consumer: 'w', count: 1 });
    const ran = await esq(['stats', queue]);
    expect(ran.code).toBe(0);
    const [header, row] = lines(ran.stdout);
    expect(header!.split(/\s{2,}/)).toEqual([
      'QUEUE',
      'LENGTH',
      'DELAYED',
      'DLQ',
      'GROUP',
      'PENDING',
      'LAG',
      'CONSUMERS',
      'OLDEST PENDING',
      'RATE WINDOW',
    ]);
    expect(row!.split(/\s+/).slice(0, 8)).toEqual([queue, '2', '0', '0', 'billing', '1', '1', '1']);
    // No rate limit: nothing counted, not throttled.
    expect(row!.split(/\s+/).at(-1)).toBe('0');
    const json = await esq(['stats', queue, '--json']);
    const stats = await q.stats();
    expect(JSON.parse(json.stdout)).toEqual({
      ...stats,
      groups: [{ ...stats.groups[0], oldestPendingAgeMs: expect.any(Number) }],
    });
    const every = await esq(['stats']);
    expect(every.stdout).toContain(queue);
  });

  it('lists, redrives and purges dead letters, and runs the sweep', async () => {
    const queue = uniqueName('cli-dlq');
    const q = client.queue(queue);
    await q.configure({ maxDeliveries: 1, visibilityTimeoutMs: 1 });
    const ids = await q.produce([{ body: { poison: 1 } }, { body: { poison: 2 } }]);
    await q.group('g').create({ start: '0' });
    await q.group('g').consume({ consumer: 'w', count: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const swept = await esq(['sweep', '--json']);
    expect(swept.code).toBe(0);
    expect(JSON.parse(swept.stdout)).toMatchObject({ deadLettered: 2, complete: true });
    const listed = await esq(['dlq', 'list', queue]);
    expect(listed.code).toBe(0);
    expect(lines(listed.stdout)[0]).toMatch(
      /^ID\s+FROM\s+GROUP\s+DELIVERIES\s+REASON\s+DEAD-LETTERED\s+BODY$/,
    );
    expect(listed.stdout).toContain(ids[0]);
    expect(listed.stdout).toContain('{"poison":1}');
    const page = await esq(['dlq', 'list', queue, '--count', '1', '--json']);
    const [letter] = lines(page.stdout).map((line) => JSON.parse(line));
    expect(letter).toMatchObject({ deadLetteredFrom: ids[0], reason: 'maxDeliveries' });
    expect(page.stderr).toContain(`more: esq dlq list ${queue} --cursor`);
    expect((await esq(['dlq', 'redrive', queue, letter.id])).stdout).toBe('redriven 1\n');
    const unconfirmed = await esq(['dlq', 'purge', queue]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain(
      `esq: This deletes every dead letter of ${queue}: pass --yes to confirm (no terminal to ask on)`,
    );
    expect((await q.stats()).deadLetters).toBe(1);
    expect((await esq(['dlq', 'purge', queue, '--yes'])).stdout).toBe('purged 1\n');
    expect((await esq(['dlq', 'list', queue])).stdout).toBe('no dead letters\n');
    const plain = await esq(['sweep']);
    expect(plain.stdout).toMatch(/^deadLettered\s+0$/m);
  });

  it('exits 1 with the API’s message when a call fails', async () => {
    const missing = await esq(['stats', 'nowhere-at-all']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'esq: Queue "nowhere-at-all" does not exist (QUEUE_NOT_FOUND, HTTP 404)',
    );
    expect(missing.stderr).toContain('hint: Create the queue with PUT /v1/queues/nowhere-at-all');
    const invalid = await esq(['consume', uniqueName('cli-bad'), 'g', '--consumer', 'no spaces']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('esq: Request validation failed (INVALID_ARGUMENT, HTTP 400)');
    expect(invalid.stderr).toContain('consumer: consumer name must be 1-100 characters');
    const refused = await esq(['stats'], { env: { ESQ_TOKEN: 'wrong' } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('(UNAUTHORIZED, HTTP 401)');
    const noToken = await esq(['stats'], { env: { ESQ_TOKEN: undefined } });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('(UNAUTHORIZED, HTTP 401)');
    expect(noToken.stderr).toContain('hint: no token was given; set ESQ_TOKEN');
    const port = await freePort();
    const down = await esq(['produce', 'q', '1', '--url', `http://127.0.0.1:${port}`]);
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(
      `esq: POST /v1/queues/q/messages failed: connection refused at 127.0.0.1:${port} (nothing was sent) (NETWORK_ERROR)\n` +
        `  hint: is the service running at http://127.0.0.1:${port}? Pass --url or set ESQ_URL\n`,
    );
  }, 60_000);

  it('exits 2 on wrong usage', async () => {
    const noUrl = await esq(['stats'], { env: { ESQ_URL: undefined } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('esq: no service URL: pass --url or set ESQ_URL');
    expect((await esq(['frobnicate'])).stderr).toContain('esq: unknown command "frobnicate"');
    const badJson = await esq(['produce', 'q', '{not json']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('esq: the body is not JSON');
    expect((await esq(['produce', 'q', '1', '--bogus'])).code).toBe(2);
    expect((await esq(['consume', 'q'])).stderr).toContain('usage: esq consume <queue> <group>');
    const badField = await esq(['queue', 'create', 'q', 'visibilityTimeout=5']);
    expect(badField.code).toBe(2);
    expect(badField.stderr).toContain(
      '"visibilityTimeout=5" is not field=value with a config field: visibilityTimeoutMs,',
    );
    expect((await esq(['queue', 'create', 'q', 'maxDeliveries=0'])).stderr).toContain(
      'esq: maxDeliveries must be an integer from 1 to 1000',
    );
    expect((await esq(['queue', 'config', 'q', 'retryBackoff=sometimes'])).stderr).toContain(
      'esq: retryBackoff must be one of none, fixed, exponential',
    );
    expect((await esq(['pause', 'q', 'g', 'extra'])).stderr).toContain('unexpected argument "extra"');
    expect((await esq(['queue', 'rename', 'q'])).stderr).toContain('unknown queue command "rename"');
  });

  it('prints its version, and each command’s own help', async () => {
    const root = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    expect(await esq(['--version'], { env: { ESQ_URL: undefined } })).toMatchObject({
      code: 0,
      stdout: `esq ${root.version}\n`,
    });
    const produceHelp = await esq(['produce', '--help']);
    expect(produceHelp.code).toBe(0);
    expect(produceHelp.stdout).toMatch(/^esq produce <queue> \[<json-body>\] \[options\]\n/);
    expect(produceHelp.stdout).not.toContain('dlq redrive');
    const createHelp = await esq(['help', 'queue', 'create']);
    expect(createHelp.stdout).toMatch(/^esq queue create <queue> \[field=value\]\.\.\. \[--json\]/);
    expect(createHelp.stdout).toContain('Fields: visibilityTimeoutMs, maxDeliveries,');
    expect((await esq(['queue', '--help'])).stdout).toContain('queue delete <queue> [--yes]');
    expect((await esq(['group', 'delete', '-h'])).stdout).toContain(
      'esq group delete <queue> <group> [--yes]',
    );
    expect((await esq(['help', 'frobnicate'])).code).toBe(2);
  });

  it('creates, configures, pauses, resumes and deletes queues and groups', async () => {
    const queue = uniqueName('cli-admin');
    const created = await esq(['queue', 'create', queue, 'visibilityTimeoutMs=60000']);
    expect(created.code, created.stderr).toBe(0);
    expect(lines(created.stdout)[0]).toBe(`created queue ${queue}`);
    expect(created.stdout).toMatch(/^visibilityTimeoutMs\s+60000$/m);
    expect((await client.queue(queue).config()).visibilityTimeoutMs).toBe(60_000);
    expect(lines((await esq(['queue', 'create', queue])).stdout)[0]).toBe(
      `queue ${queue} already exists; nothing changed`,
    );
    const changed = await esq(['queue', 'config', queue, 'maxDeliveries=9', 'retryBackoff=fixed', '--json']);
    expect(JSON.parse(changed.stdout)).toMatchObject({
      visibilityTimeoutMs: 60_000,
      maxDeliveries: 9,
      retryBackoff: 'fixed',
    });
    expect((await esq(['queue', 'config', queue])).stdout).toMatch(/^maxDeliveries\s+9$/m);
    // Rate limits as max/periodMs, none to clear; printed the same way.
    const limited = await esq([
      'queue',
      'config',
      queue,
      'rateLimit=100/1000',
      'keyRateLimit=5/60000',
      '--json',
    ]);
    expect(JSON.parse(limited.stdout)).toMatchObject({
      rateLimit: { max: 100, periodMs: 1000 },
      keyRateLimit: { max: 5, periodMs: 60_000 },
    });
    expect((await esq(['queue', 'config', queue])).stdout).toMatch(/^rateLimit\s+100\/1000$/m);
    expect((await esq(['queue', 'config', queue, 'keyRateLimit=none'])).stdout).toMatch(
      /^keyRateLimit\s+none$/m,
    );
    const badRate = await esq(['queue', 'config', queue, 'rateLimit=0/1000']);
    expect(badRate.code).toBe(2);
    expect(badRate.stderr).toContain('esq: rateLimit must be <max>/<periodMs>');
    expect((await client.queue(queue).config()).rateLimit).toEqual({ max: 100, periodMs: 1000 });
    const missing = await esq(['queue', 'config', `${queue}-none`, 'maxDeliveries=2']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`queue ${queue}-none does not exist; create it with esq queue create`);
    expect((await client.queues()).some((s) => s.name === `${queue}-none`)).toBe(false);

    expect((await esq(['group', 'create', queue, 'g'])).stdout).toBe(`created group g of ${queue}\n`);
    expect((await esq(['group', 'create', queue, 'g'])).stdout).toBe(
      `group g of ${queue} already exists; unchanged\n`,
    );
    expect((await esq(['pause', queue])).stdout).toBe(`paused queue ${queue}\n`);
    expect((await client.queue(queue).stats()).paused).toBe(true);
    expect((await esq(['resume', queue])).stdout).toBe(`resumed queue ${queue}\n`);
    expect((await esq(['pause', queue, 'g'])).stdout).toBe(`paused group g of ${queue}\n`);
    expect((await client.queue(queue).stats()).groups).toMatchObject([{ name: 'g', paused: true }]);
    expect((await esq(['resume', queue, 'g'])).stdout).toBe(`resumed group g of ${queue}\n`);
    expect((await client.queue(queue).stats()).groups).toMatchObject([{ name: 'g', paused: false }]);
    const ghost = await esq(['pause', queue, 'ghost']);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain('(GROUP_NOT_FOUND, HTTP 404)');

    const unconfirmed = await esq(['group', 'delete', queue, 'g']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('pass --yes to confirm');
    expect((await esq(['group', 'delete', queue, 'g', '--yes'])).stdout).toBe(
      `deleted group g of ${queue}\n`,
    );
    expect((await esq(['group', 'delete', queue, 'g', '-y'])).stdout).toBe(
      `group g of ${queue} did not exist\n`,
    );
    expect((await esq(['queue', 'delete', queue])).code).toBe(2);
    expect((await client.queue(queue).stats()).name).toBe(queue);
    expect((await esq(['queue', 'delete', queue, '--yes'])).stdout).toBe(`deleted queue ${queue}\n`);
    expect((await esq(['queue', 'delete', queue, '--yes'])).stdout).toBe(`queue ${queue} did not exist\n`);
  }, 60_000);

  it('asks on a terminal before a delete, and deletes only on yes', async () => {
    const queue = uniqueName('cli-tty');
    await client.queue(queue).configure();
    // script(1) gives esq a terminal (a pty) fed from our stdin.
    const onTerminal = async (answer: string) => {
      const command = [process.execPath, join(projectRoot, 'bin/esq.mjs'), 'queue', 'delete', queue]
        .map((word) => `'${word}'`)
        .join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: projectRoot,
        env: { ...process.env, ESQ_URL: url, ESQ_TOKEN: token },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Go ahead? [y/N]') && child.stdin!.writable) child.stdin!.end(`${answer}\n`);
      });
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      return { code, output };
    };
    const no = await onTerminal('n');
    expect(no.output).toContain(
      `This deletes queue ${queue} with all its messages, groups and dead letters. Go ahead? [y/N]`,
    );
    expect(no.output).toContain('esq: cancelled; nothing was changed');
    expect(no.code).toBe(1);
    expect((await client.queue(queue).stats()).name).toBe(queue);
    const yes = await onTerminal('y');
    expect(yes.output).toContain(`deleted queue ${queue}`);
    expect(yes.code).toBe(0);
    expect(await client.queue(queue).delete()).toBe(false);
  }, 60_000);

  it('takes --url and --token over ESQ_URL and ESQ_TOKEN', async () => {
    const ran = await esq(['stats', '--url', url, '--token', token], {
      env: { ESQ_URL: 'http://127.0.0.1:1', ESQ_TOKEN: 'wrong' },
    });
    expect(ran.code).toBe(0);
  });
});

/**
 * A tiny raw RESP2 client over node:net for the differential suite and the engine benchmark.
 * It decodes replies into the engine's own Reply values (status → StatusReply, error → RedisError,
 * integer → number, bulk → string, nil → null, arrays → arrays), so a comparison with the engine is
 * exact: ioredis turns statuses into strings and errors into rejections, which would hide the very
 * distinctions the suite exists to check. Pipelining is one write and replies in order.
 */
import { connect, type Socket } from 'node:net';
import { RedisError, type Reply, StatusReply } from '../../lib/engine/reply.ts';

export interface RespClient {
  /** Sends one command and resolves with its reply (errors are values, never rejections). */
  call(argv: readonly string[]): Promise<Reply>;
  /** Sends every command in one write; resolves with the replies in order. */
  pipeline(commands: readonly (readonly string[])[]): Promise<Reply[]>;
  close(): Promise<void>;
}

const CRLF = '\r\n';

/** Encodes one command as a RESP array of bulk strings. */
export function encodeCommand(argv: readonly string[]): string {
  let out = `*${argv.length}${CRLF}`;
  for (const arg of argv) out += `$${Buffer.byteLength(arg)}${CRLF}${arg}${CRLF}`;
  return out;
}

/** A parse result: the reply and the offset just past it, or undefined when more bytes are needed. */
type Parsed = { reply: Reply; next: number } | undefined;

/** Parses one reply starting at `offset`; undefined if the buffer does not hold all of it yet. */
export function parseReply(buffer: Buffer, offset: number): Parsed {
  const lineEnd = buffer.indexOf(CRLF, offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[offset] ?? 0);
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const afterLine = lineEnd + 2;
  switch (type) {
    case '+':
      return { reply: new StatusReply(line), next: afterLine };
    case '-':
      return { reply: new RedisError(line), next: afterLine };
    case ':':
      return { reply: Number(line), next: afterLine };
    case '$': {
      const length = Number(line);
      if (length < 0) return { reply: null, next: afterLine };
      if (buffer.length < afterLine + length + 2) return undefined;
      return { reply: buffer.toString('utf8', afterLine, afterLine + length), next: afterLine + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { reply: null, next: afterLine };
      const items: Reply[] = [];
      let next = afterLine;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, next);
        if (item === undefined) return undefined;
        items.push(item.reply);
        next = item.next;
      }
      return { reply: items, next };
    }
    default:
      throw new Error(`RESP protocol error: unexpected type byte ${JSON.stringify(type)}`);
  }
}

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

/**
 * Connects to `url` (redis://[user:password@]host[:port][/db]). Authenticates and selects the
 * database when the URL says so.
 */
export async function createRespClient(url: string): Promise<RespClient> {
  const parsed = new URL(url);
  const socket: Socket = connect({ host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || 6379) });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });

  const pending: Pending[] = [];
  let buffered: Buffer = Buffer.alloc(0);
  let closedError: Error | undefined;

  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    let offset = 0;
    while (offset < buffered.length) {
      const parsedReply = parseReply(buffered, offset);
      if (parsedReply === undefined) break;
      offset = parsedReply.next;
      const waiter = pending.shift();
      if (waiter === undefined) throw new Error('RESP reply with no request waiting for it');
      waiter.resolve(parsedReply.reply);
    }
    buffered = buffered.subarray(offset);
  });
  const failAll = (error: Error) => {
    closedError = error;
    for (const waiter of pending.splice(0)) waiter.reject(error);
  };
  socket.on('error', failAll);
  socket.on('close', () => failAll(closedError ?? new Error('connection closed')));

  function send(commands: readonly (readonly string[])[]): Promise<Reply[]> {
    if (closedError !== undefined) return Promise.reject(closedError);
    const replies = commands.map(
      (_argv) => new Promise<Reply>((resolve, reject) => pending.push({ resolve, reject })),
    );
    socket.write(commands.map(encodeCommand).join(''));
    return Promise.all(replies);
  }

  const client: RespClient = {
    call: async (argv) => (await send([argv]))[0] ?? null,
    pipeline: (commands) => send(commands),
    close: () =>
      new Promise<void>((resolve) => {
        closedError = new Error('client closed');
        socket.end(() => resolve());
      }),
  };

  const setup: string[][] = [];
  if (parsed.password !== '') {
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    setup.push(user === '' ? ['AUTH', password] : ['AUTH', user, password]);
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && db !== '0') setup.push(['SELECT', db]);
  for (const reply of await client.pipeline(setup)) {
    if (reply instanceof RedisError) {
      await client.close();
      throw reply;
    }
  }
  return client;
}

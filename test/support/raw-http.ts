/**
 * Raw HTTP/1.1 over a socket, for what fetch cannot do: a request whose body stalls part way,
 * and the timing of the answer's first byte and of the connection's close.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status line's code, or 0 when nothing came. */
  status: number;
  /** Milliseconds from sending the request until the first answer byte. */
  firstByteMs: number;
  /** Milliseconds until the server closed the connection, when it did within the wait. */
  closedMs: number | undefined;
  text: string;
}

/**
 * Sends `head` and `partial` on a raw socket and never sends the rest; collects what comes back
 * within `waitMs`, or until the first answer is whole unless `untilClosed`.
 */
export function stalledRequest(
  url: string,
  head: string,
  partial: string,
  waitMs: number,
  untilClosed = true,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    let text = '';
    let firstByteMs = -1;
    let closedMs: number | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), firstByteMs, closedMs, text });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk: Buffer) => {
      if (firstByteMs < 0) firstByteMs = Date.now() - started;
      text += chunk.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
      if (!untilClosed && end >= 0 && Buffer.byteLength(text) - end - 4 >= length) finish();
    });
    socket.on('close', () => {
      closedMs = Date.now() - started;
      finish();
    });
    socket.on('error', () => undefined);
    socket.write(head + partial);
  });
}

export function head(path: string, headers: Record<string, string>, length: number): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`POST ${path} HTTP/1.1`, 'Host: localhost', ...lines, `Content-Length: ${length}`, '', ''].join(
    '\r\n',
  );
}

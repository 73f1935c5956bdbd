/**
 * Dedicated connections for blocking reads over TCP (issue 18). A blocking command parks its
 * connection on the server, so it must never run on the connection every other call shares:
 * each read borrows a connection of its own from a small bounded pool. A read that ends normally
 * gives its connection back (a few are kept open for the next long poll); a read given up (the
 * client left, the deadline passed) closes its connection, which ends the wait on the server
 * at once: no blocked client is left behind. Past `max` connections a read is refused at once
 * (the long poll then falls back to polling) rather than queued behind the others.
 */
import type { Redis } from 'ioredis';

export interface BlockingPool {
  /** Sends `argv` on a dedicated connection; aborting `signal` closes that connection. */
  send(argv: readonly string[], signal?: AbortSignal): Promise<unknown>;
  /** Connections open now (busy and idle). */
  readonly size: number;
  /** Closes every connection; reads in flight reject. */
  close(): void;
}

export interface BlockingPoolOptions {
  /** Most connections open at once. Default 16. */
  max?: number;
  /** Connections kept open between reads. Default 2. */
  keep?: number;
  /** An idle kept connection is closed after this long. Default 5 minutes. */
  idleMs?: number;
}

/** Refused: every connection of the pool is busy. */
export class PoolExhaustedError extends Error {
  override name = 'PoolExhaustedError';
}

/**
 * @example
 * const pool = createBlockingPool(() => connection.duplicate({ connectionName: 'esq-blocking' }));
 * await pool.send(['XREAD', 'BLOCK', '1000', 'STREAMS', 'k', '$'], signal);
 */
export function createBlockingPool(open: () => Redis, options: BlockingPoolOptions = {}): BlockingPool {
  const max = options.max ?? 16;
  const keep = options.keep ?? 2;
  const idleMs = options.idleMs ?? 5 * 60_000;
  const idle: { connection: Redis; timer: ReturnType<typeof setTimeout> }[] = [];
  const busy = new Set<Redis>();
  let closed = false;

  function release(connection: Redis): void {
    busy.delete(connection);
    if (closed || idle.length >= keep || connection.status !== 'ready') {
      connection.disconnect();
      return;
    }
    const timer = setTimeout(() => {
      const at = idle.findIndex((entry) => entry.connection === connection);
      if (at >= 0) idle.splice(at, 1);
      connection.disconnect();
    }, idleMs);
    timer.unref?.();
    idle.push({ connection, timer });
  }

  function take(): Redis {
    const entry = idle.pop();
    if (entry !== undefined) {
      clearTimeout(entry.timer);
      return entry.connection;
    }
    if (busy.size >= max) throw new PoolExhaustedError(`all ${max} blocking-read connections are busy`);
    const connection = open();
    // Failures reach the read that fails on them.
    connection.on('error', () => {});
    return connection;
  }

  return {
    get size() {
      return busy.size + idle.length;
    },
    send(argv, signal) {
      if (closed) return Promise.reject(new Error('the blocking-read pool is closed'));
      if (signal?.aborted === true) return Promise.reject(signal.reason);
      let connection: Redis;
      try {
        connection = take();
      } catch (error) {
        return Promise.reject(error);
      }
      busy.add(connection);
      return new Promise<unknown>((resolve, reject) => {
        let settled = false;
        const onAbort = () => {
          if (settled) return;
          settled = true;
          // Closing the socket unblocks the client on the server; the connection is not reused.
          busy.delete(connection);
          connection.disconnect();
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        connection.call(argv[0] as string, ...argv.slice(1)).then(
          (reply) => {
            signal?.removeEventListener('abort', onAbort);
            if (settled) return;
            settled = true;
            release(connection);
            resolve(reply);
          },
          (error: unknown) => {
            signal?.removeEventListener('abort', onAbort);
            if (settled) return;
            settled = true;
            busy.delete(connection);
            connection.disconnect();
            reject(error);
          },
        );
      });
    },
    close() {
      closed = true;
      for (const { connection, timer } of idle.splice(0)) {
        clearTimeout(timer);
        connection.disconnect();
      }
      for (const connection of busy) connection.disconnect();
      busy.clear();
    },
  };
}

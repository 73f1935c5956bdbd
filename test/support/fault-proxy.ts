/**
 * A byte-level TCP proxy for fault-injection tests. It sits between a client and a server and
 * knows nothing of the protocol, so the same proxy breaks HTTP to the REST front and RESP to
 * redis-server. Each fault is switched at runtime and applies to open and new connections alike:
 *
 * - latency: every chunk, each way, is delivered `ms` after it arrived (a one-way delay, order
 *   kept), so a request and its reply take at least 2 × `ms` longer;
 * - stall: every byte, both ways, is held until `release()` — the network hangs, nothing is lost;
 * - drop: a connection is cut (the client gets EOF) once it has forwarded `afterBytes` more bytes
 *   of the server's reply: the request arrived and ran, its answer is lost midway;
 * - refuse: new connections are closed as soon as they are accepted;
 * - restart: the listener and every connection close, and the same port listens again later.
 *
 * A client that goes away while its bytes are held still has them delivered (they were already
 * "on the wire"), followed by the close: the worst case, where the server runs a request whose
 * client gave up. There is no backpressure: test traffic is small.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface FaultProxyOptions {
  /** Where the proxy forwards to. */
  target: { host?: string; port: number };
  /** The port to listen on; 0 (the default) picks a free one. */
  port?: number;
}

export interface FaultProxy {
  readonly host: string;
  /** The listening port; the same across restarts. */
  readonly port: number;
  /** Delays every chunk, each way, by `ms` (0 turns latency off). */
  setLatency(ms: number): void;
  /** Holds every byte, both ways, until `release()`. */
  stall(): void;
  /** Delivers what was held and lets bytes through again. */
  release(): void;
  /** Cuts each connection after `afterBytes` more bytes from the server; undefined turns it off. */
  drop(afterBytes: number | undefined): void;
  /** While on, closes every new connection as soon as it is accepted (open ones are left alone). */
  refuse(on: boolean): void;
  /** Destroys every open connection now, as a server going away would. */
  disconnectAll(): void;
  /**
   * Closes the listener and every connection (new ones are refused by the OS meanwhile) and
   * listens again on the same port after `downMs`; resolves once it listens again.
   */
  restart(downMs: number): Promise<void>;
  /** No latency, no stall (held bytes go through), no drop, no refusing. */
  heal(): void;
  /** Connections accepted so far, refused ones included. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  close(): Promise<void>;
}

/** A chunk waiting for its delivery time; `null` data is the end of that direction. */
interface Held {
  at: number;
  data: Buffer | null;
}

/** One proxied connection (a client socket and its server socket) and what each way holds. */
interface Link {
  /** Bytes from the server left before the cut, when drop is on. */
  dropIn: number | undefined;
  /** Destroys both sockets; `lastBytes` still reach the client, then it gets EOF. */
  cut(lastBytes?: Buffer): void;
  pump(): void;
  /** Makes everything held due now (healing drops the latency of chunks already waiting). */
  rush(): void;
}

/**
 * @example
 * const proxy = await startFaultProxy({ target: { port: 6379 } });
 * const redis = new Redis(proxy.port, proxy.host);
 * proxy.stall(); ... proxy.release();
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const host = '127.0.0.1';
  const target = { host: options.target.host ?? '127.0.0.1', port: options.target.port };
  const links = new Set<Link>();
  let latencyMs = 0;
  let stalled = false;
  let dropAfter: number | undefined;
  let refusing = false;
  let accepted = 0;
  let closed = false;

  function open(client: Socket): void {
    accepted++;
    client.on('error', () => {});
    if (refusing) {
      client.destroy();
      return;
    }
    const server = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    server.on('error', () => {});
    const toServer: Held[] = [];
    const toClient: Held[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let dead = false;

    const link: Link = {
      dropIn: dropAfter,
      cut(lastBytes) {
        if (dead) return;
        dead = true;
        clearTimeout(timer);
        links.delete(link);
        server.destroy();
        if (lastBytes === undefined) client.destroy();
        else client.end(lastBytes, () => client.destroy());
      },
      rush() {
        for (const held of [...toServer, ...toClient]) held.at = 0;
      },
      pump() {
        clearTimeout(timer);
        if (dead || stalled) return;
        const now = Date.now();
        let next = Number.POSITIVE_INFINITY;
        for (const [queue, to, fromServer] of [
          [toServer, server, false],
          [toClient, client, true],
        ] as const) {
          while (!dead && queue.length > 0) {
            const head = queue[0] as Held;
            if (head.at > now) {
              next = Math.min(next, head.at);
              break;
            }
            queue.shift();
            deliver(to, head.data, fromServer);
          }
        }
        if (!dead && next !== Number.POSITIVE_INFINITY) timer = setTimeout(link.pump, next - now);
      },
    };

    /** Writes one chunk (or the end); the server's bytes count towards a drop. */
    function deliver(to: Socket, data: Buffer | null, fromServer: boolean): void {
      if (to.destroyed) return;
      if (data === null) {
        to.end();
        return;
      }
      if (fromServer && link.dropIn !== undefined) {
        if (data.length >= link.dropIn) {
          link.cut(data.subarray(0, link.dropIn));
          return;
        }
        link.dropIn -= data.length;
      }
      to.write(data);
    }

    const hold = (queue: Held[], data: Buffer | null) => {
      if (dead) return;
      queue.push({ at: Date.now() + latencyMs, data });
      link.pump();
    };
    // A side that ends or goes away ends the other way too, after what it already sent.
    const ended = (queue: Held[]) => {
      let once = false;
      return () => {
        if (once) return;
        once = true;
        hold(queue, null);
      };
    };
    client.on('data', (data: Buffer) => hold(toServer, data));
    server.on('data', (data: Buffer) => hold(toClient, data));
    const clientGone = ended(toServer);
    const serverGone = ended(toClient);
    client.on('end', clientGone);
    client.on('close', clientGone);
    server.on('end', serverGone);
    server.on('close', serverGone);
    // Once both sockets are closed there is nothing left to deliver.
    let closedSockets = 0;
    const forget = () => {
      closedSockets++;
      if (closedSockets === 2) link.cut();
    };
    client.on('close', forget);
    server.on('close', forget);
    links.add(link);
  }

  const listener = createServer({ allowHalfOpen: true }, open);
  let port = options.port ?? 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen({ host, port }, () => {
        listener.off('error', reject);
        resolve();
      });
    });
  await listen();
  const address = listener.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no TCP address');
  port = address.port;

  const everyLink = (action: (link: Link) => void) => {
    for (const link of [...links]) action(link);
  };
  const release = () => {
    stalled = false;
    everyLink((link) => link.pump());
  };

  return {
    host,
    port,
    setLatency(ms) {
      latencyMs = ms;
    },
    stall() {
      stalled = true;
    },
    release,
    drop(afterBytes) {
      dropAfter = afterBytes;
      everyLink((link) => {
        link.dropIn = afterBytes;
      });
    },
    refuse(on) {
      refusing = on;
    },
    disconnectAll() {
      everyLink((link) => link.cut());
    },
    async restart(downMs) {
      const down = new Promise<void>((resolve) => listener.close(() => resolve()));
      everyLink((link) => link.cut());
      await down;
      await new Promise((resolve) => setTimeout(resolve, downMs));
      if (!closed) await listen();
    },
    heal() {
      latencyMs = 0;
      dropAfter = undefined;
      refusing = false;
      everyLink((link) => {
        link.dropIn = undefined;
        link.rush();
      });
      release();
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return links.size;
    },
    async close() {
      closed = true;
      everyLink((link) => link.cut());
      if (listener.listening) await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

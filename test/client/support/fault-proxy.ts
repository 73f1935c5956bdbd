/**
 * A real HTTP server in front of the real service that misbehaves on cue: the next requests
 * answer a status of its choosing (503 with Retry-After, 429), drop the connection before or after
 * the service handled them, or hang; every other request passes through untouched. It records
 * what it saw, so tests count attempts.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; body?: unknown }
  /** Closes the connection before the service sees the request: certainly not applied. */
  | { kind: 'drop' }
  /** Lets the service handle it, then closes the connection instead of answering: applied, answer lost. */
  | { kind: 'drop-after' }
  /** Never answers. */
  | { kind: 'hang' };

export interface FaultProxy {
  readonly url: string;
  /** Method and path of each request that arrived, faulted or not. */
  readonly seen: string[];
  /** The next requests meet these faults, in order; then requests pass. */
  fail(...faults: Fault[]): void;
  /** Forgets unused faults and what it saw. */
  reset(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const seen: string[] = [];
  const faults: Fault[] = [];
  const hanging = new Set<ServerResponse>();

  const forward = (req: IncomingMessage, res: ServerResponse, answer: boolean) => {
    const out = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (reply) => {
        if (!answer) {
          reply.resume();
          reply.once('end', () => res.socket?.destroy());
          return;
        }
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const fault = faults.shift();
    if (fault === undefined) return forward(req, res, true);
    switch (fault.kind) {
      case 'status': {
        req.resume();
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
        res.writeHead(fault.status, headers);
        res.end(JSON.stringify(fault.body ?? { error: { code: 'REDIS_UNAVAILABLE', message: 'injected' } }));
        return;
      }
      case 'drop':
        req.socket.destroy();
        return;
      case 'drop-after':
        return forward(req, res, false);
      case 'hang':
        req.resume();
        hanging.add(res);
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    fail: (...more) => faults.push(...more),
    reset: () => {
      faults.length = 0;
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

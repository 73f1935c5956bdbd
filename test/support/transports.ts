/**
 * The transports the REST adapter runs on (lib/redis/rest-requester.ts), for suites that run once
 * on each: `fetch` (Workers, Deno), Node's sockets (functions/support/socket-transport.ts, what
 * Node runs) and undici's pool (functions/support/undici-transport.ts).
 */
import { createSocketTransport } from '../../functions/support/socket-transport.ts';
import { createUndiciTransport } from '../../functions/support/undici-transport.ts';
import { fetchTransport, type RestTransport } from '../../lib/redis/rest-requester.ts';

export interface TransportKind {
  readonly name: string;
  /** A transport for the endpoint at `url`, and how to close it. */
  open(url: string): { transport: RestTransport; close(): Promise<void> };
}

export const transportKinds: readonly TransportKind[] = [
  { name: 'fetch', open: () => ({ transport: fetchTransport, close: async () => {} }) },
  { name: 'sockets', open: (url) => createSocketTransport(url) },
  { name: 'undici', open: (url) => createUndiciTransport(url) },
];

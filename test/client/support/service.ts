/**
 * The real service for client tests: `npm start`'s server (`startApiServer`) on a fresh
 * in-process engine, on a free port, with one token per scope, and a client for each token.
 */
import { type ApiServer, startApiServer } from '../../../functions/node.ts';
import { createQueueClient, type QueueClient, type QueueClientOptions } from '../../../lib/client/index.ts';

export const tokens = { admin: 'client-admin', produce: 'client-produce', consume: 'client-consume' };

export interface TestService {
  server: ApiServer;
  url: string;
  /** A client with the admin token (or `token`), other options as given. */
  client(options?: Partial<QueueClientOptions>): QueueClient;
  close(): Promise<void>;
}

export async function startService(env: Record<string, string> = {}): Promise<TestService> {
  const server = await startApiServer({
    port: 0,
    env: {
      API_TOKENS: `admin:${tokens.admin},produce:${tokens.produce},consume:${tokens.consume}`,
      ...env,
    },
    sweepIntervalMs: 0,
  });
  return {
    server,
    url: server.url,
    client: (options = {}) => createQueueClient({ url: server.url, token: tokens.admin, ...options }),
    close: () => server.close(),
  };
}

/** A queue name no other test uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

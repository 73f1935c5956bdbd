/**
 * The API with canned queue answers: npm start's app (auth, validation, the request budget,
 * metrics, request ids, the error envelope, the Node adapter reading bodies first) in front of a
 * queue that answers each operation with the first real answer it gave for that shape (same
 * operation, same number of messages or ids), so no Redis work is done after the first call. The
 * API benchmark compares it with the do-nothing queue: what the HTTP layer alone costs, apart
 * from the engine (Redis itself, which the in-process API runs in its own process).
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { withNodeBody } from '../../functions/support/node-body.ts';
import { createApp } from '../../lib/api/app.ts';
import { resolveTokens } from '../../lib/api/auth.ts';
import { buildService } from '../../lib/api/bootstrap.ts';
import { readSettings } from '../../lib/api/settings.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import type { QueueService } from '../../lib/queue/types.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';

/** `queue`, each method answering its first real answer per operation and argument lengths. */
function cannedQueue(queue: QueueService): QueueService {
  const answers = new Map<string, Promise<unknown>>();
  return new Proxy(queue, {
    get(target, property) {
      const member = Reflect.get(target, property) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        const shape = args.map((arg) => (Array.isArray(arg) ? arg.length : '')).join(',');
        const key = `${String(property)}(${shape})`;
        let answer = answers.get(key);
        if (answer === undefined) {
          answer = Promise.resolve(member.apply(target, args));
          answers.set(key, answer);
        }
        return answer;
      };
    },
  });
}

/** Starts the canned server on a free port of 127.0.0.1; resolves with its URL. */
export async function startCannedServer(token: string): Promise<string> {
  const settings = readSettings({ API_TOKENS: `admin:${token}` }, 'production');
  const { queue } = await buildService({ redis: createEngineClient(createEngine()), settings });
  const { tokens } = await resolveTokens(settings.tokenSpec, settings.mode);
  const app = createApp({
    queue: cannedQueue(queue),
    tokens,
    health: () => Promise.resolve(true),
    limits: settings.limits,
  });
  const limitBytes = 1024 * 1024;
  return new Promise((resolve) => {
    serve(
      {
        fetch: withNodeBody((request, env) => app.fetch(request, env), {
          limitBytes,
          maxDrainBytes: 64 * limitBytes,
          timeoutMs: settings.bodyTimeoutMs,
        }),
        port: 0,
        hostname: '127.0.0.1',
        autoCleanupIncoming: false,
      },
      (address: AddressInfo) => resolve(`http://127.0.0.1:${address.port}`),
    );
  });
}

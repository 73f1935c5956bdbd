import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../lib/engine/engine.ts';
import { createRestFront } from '../../lib/rest-front/app.ts';
import { createEngineBackend } from '../../lib/rest-front/engine-backend.ts';
import { TOKEN } from './request.ts';

const NAMES = ['PING', 'TIME', 'XADD', 'XLEN', 'XRANGE', 'GET', 'SET', 'DEL', 'INCR', 'NOPE', 'ping', ''];

/** Mostly near-valid commands, so the engine gets exercised, plus arbitrary JSON of any shape. */
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double(), fc.boolean());
const command = fc.oneof(
  fc
    .tuple(fc.constantFrom(...NAMES), fc.array(scalar, { maxLength: 5 }))
    .map(([name, args]) => [name, ...args]),
  fc.jsonValue({ maxDepth: 3 }),
);
const body = fc.oneof(
  command.map((value) => JSON.stringify(value)),
  fc.array(command, { maxLength: 6 }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 20 }),
);
const request = fc.record({
  path: fc.constantFrom('/', '/pipeline', '/multi-exec'),
  body,
  base64: fc.boolean(),
});

describe('REST front under arbitrary requests', () => {
  it('answers every request with JSON and a 200 or 400, and keeps serving', async () => {
    const app = createRestFront({ backend: createEngineBackend(createEngine()), token: TOKEN });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 10 }), async (requests) => {
        for (const { path, body, base64 } of requests) {
          const headers: Record<string, string> = {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
          };
          if (base64) headers['upstash-encoding'] = 'base64';
          const res = await app.request(path, { method: 'POST', headers, body });
          const json = JSON.parse(await res.text()) as unknown;
          expect([200, 400]).toContain(res.status);
          if (res.status === 400) {
            expect(json).toEqual({ error: expect.any(String) });
          } else if (path === '/') {
            expect(json).toHaveProperty('result');
          } else {
            const sent = JSON.parse(body) as unknown[];
            expect(Array.isArray(json) && json.length === sent.length).toBe(true);
          }
        }
        const ping = await app.request('/', {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '["PING"]',
        });
        expect(await ping.json()).toEqual({ result: 'PONG' });
      }),
      { numRuns: 150 },
    );
  });
});

/**
 * Every operation of the served document, sent bare — no body, no Content-Type, no
 * Content-Length — with the admin token and with no header at all, over a raw socket to Node's
 * server and through `app.request` (the web runtimes' path): never a 5xx, always a status the
 * document lists for the operation, every refusal the envelope; a bare `POST /v1/sweep` runs the
 * sweep. (Node answered 500 "Response body object should not be disturbed or locked" to each
 * bodied route before.)
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { createEngine } from '../../lib/engine/engine.ts';

const token = 'bare-admin-token-0001';
let server: ApiServer;

interface Operation {
  method: string;
  path: string;
  operationId: string;
  statuses: string[];
  open: boolean;
}

let operations: Operation[] = [];

/** Path parameters that pass validation, so the request reaches its route. */
const params: Record<string, string> = { queue: 'bare-q', group: 'bare-g', name: 'bare-s', id: '1-0' };

beforeAll(async () => {
  server = await startApiServer({
    port: 0,
    env: { API_TOKENS: `admin:${token}`, API_MODE: 'production' },
    engine: createEngine(),
    sweepIntervalMs: 0,
  });
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; responses: object; security?: unknown[] }>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? name),
      operationId: op.operationId,
      statuses: Object.keys(op.responses),
      open: Array.isArray(op.security) && op.security.length === 0,
    })),
  );
});

afterAll(async () => {
  await server?.close();
});

/** One bare request on its own connection: the request line, Host, and the given headers only. */
function rawRequest(
  method: string,
  path: string,
  headers: string[],
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
    socket.write(
      [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close', ...headers, '', ''].join('\r\n'),
    );
  });
}

function checkAnswer(op: Operation, status: number, body: string, authenticated: boolean): void {
  const what = `${op.operationId} (${op.method} ${op.path}), ${authenticated ? 'with' : 'without'} a token`;
  expect(status, what).toBeGreaterThanOrEqual(200);
  expect(status, what).toBeLessThan(500);
  expect(op.statuses, `${what}: status ${status} is documented`).toContain(String(status));
  if (!authenticated && !op.open) expect(status, what).toBe(401);
  if (status >= 400) {
    const envelope = JSON.parse(body) as { error: { code: string; message: string } };
    expect(typeof envelope.error.code, what).toBe('string');
    expect(typeof envelope.error.message, what).toBe('string');
  }
}

describe('bare requests to every operation', () => {
  it('on Node: no body, no Content-Type, no Content-Length, with and without a token: never a 5xx', async () => {
    expect(operations.length).toBeGreaterThan(25);
    for (const authenticated of [true, false]) {
      for (const op of operations) {
        const headers = authenticated ? [`Authorization: Bearer ${token}`] : [];
        const { status, body } = await rawRequest(op.method, op.path, headers);
        checkAnswer(op, status, body, authenticated);
      }
    }
  });

  it('on Node: with Content-Length: 0 as fetch sends it: never a 5xx', async () => {
    for (const op of operations) {
      const response = await fetch(`${server.url}${op.path}`, {
        method: op.method,
        headers: { authorization: `Bearer ${token}` },
      });
      checkAnswer(op, response.status, await response.text(), true);
    }
  });

  it('through app.request, as on Workers and Deno: never a 5xx', async () => {
    for (const authenticated of [true, false]) {
      for (const op of operations) {
        const response = await server.service.app.request(op.path, {
          method: op.method,
          headers: authenticated ? { authorization: `Bearer ${token}` } : {},
        });
        checkAnswer(op, response.status, await response.text(), authenticated);
      }
    }
  });

  it('runs the sweep on a bare POST /v1/sweep', async () => {
    const { status, body } = await rawRequest('POST', '/v1/sweep', [`Authorization: Bearer ${token}`]);
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ complete: true, deadLettered: 0 });
  });
});

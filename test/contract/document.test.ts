/**
 * The served document is usable by tools that are not ours: `@redocly/cli lint` with the
 * recommended rules finds no error (the warnings left are justified in redocly.yaml), and types
 * generated from it by openapi-typescript type-check a small program that produces, consumes and
 * acks through plain fetch.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../api/support/harness.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
let dir: string;
let documentText: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'openapi-'));
  const h = await createHarness();
  documentText = (await h.call('GET', '/openapi.json', { token: null })).text;
  await writeFile(join(dir, 'openapi.json'), documentText);
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the served OpenAPI document', () => {
  it('passes redocly lint with the recommended rules: no errors, only the justified warning', async () => {
    const cli = join(root, 'node_modules/@redocly/cli/bin/cli.js');
    const args = [
      cli,
      'lint',
      join(dir, 'openapi.json'),
      '--config',
      join(root, 'redocly.yaml'),
      '--format',
      'json',
    ];
    // lint exits non-zero on errors; the report on stdout says which either way.
    const { stdout } = await run(process.execPath, args, { cwd: dir }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; location: { pointer: string }[] }[];
    };
    expect(report.totals.errors).toBe(0);
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)).toEqual([
      'operation-4xx-response #/paths/~1healthz/get/responses',
    ]);
  }, 60_000);

  it('yields openapi-typescript types that type-check a produce, consume and ack program', async () => {
    const types = astToString(await openapiTS(JSON.parse(documentText)));
    await writeFile(join(dir, 'api.d.ts'), types);
    await writeFile(
      join(dir, 'program.ts'),
      `import type { paths } from './api.d.ts';

type Produce = paths['/v1/queues/{queue}/messages']['post'];
type Consume = paths['/v1/queues/{queue}/groups/{group}/consume']['post'];
type Ack = paths['/v1/queues/{queue}/groups/{group}/ack']['post'];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

async function call<B, R>(url: string, body: B, token: string): Promise<R> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: \`Bearer \${token}\`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as R;
}

export async function roundTrip(base: string, token: string): Promise<number> {
  const produce: Json<Produce['requestBody']> = { messages: [{ body: { sku: 42 }, dedupId: 'order-42' }] };
  const produced = await call<typeof produce, Json<Produce['responses'][201]>>(\`\${base}/v1/queues/orders/messages\`, produce, token);
  const ids: string[] = produced.ids;
  const consume: Json<Consume['requestBody']> = { consumer: 'w1', count: 10, waitMs: 1000 };
  const consumed = await call<typeof consume, Json<Consume['responses'][200]>>(
    \`\${base}/v1/queues/orders/groups/billing/consume\`,
    consume,
    token,
  );
  const deliveries: number[] = consumed.messages.map((m) => m.deliveries);
  const ack: Json<Ack['requestBody']> = { ids: consumed.messages.map((m) => m.id) };
  const acked = await call<typeof ack, Json<Ack['responses'][200]>>(\`\${base}/v1/queues/orders/groups/billing/ack\`, ack, token);
  const failure: Json<Ack['responses'][503]> = { error: { code: 'REDIS_UNAVAILABLE', message: 'later' } };
  void failure;
  return acked.acked + ids.length + deliveries.length;
}
`,
    );
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          allowImportingTsExtensions: true,
          lib: ['ES2023', 'DOM'],
          types: [],
          skipLibCheck: false,
        },
        files: ['program.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')]).then(
      () => ({ code: 0, output: '' }),
      (error: { stdout?: string; code?: number }) => ({ code: error.code ?? 1, output: error.stdout ?? '' }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);
});

/**
 * The API against its own OpenAPI document over real HTTP: thousands of seeded requests (valid,
 * one rule broken, wrong or weak tokens) to every operation of `npm start`'s server on the
 * in-process engine. CONTRACT_RUNS and CONTRACT_SEED repeat or widen a run; fast-check prints the
 * seed and the shrunk request of a failure.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../functions/node.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { checkContract, type Tokens } from './support/contract.ts';

const tokens: Tokens = {
  admin: 'contract-admin-token',
  produce: 'contract-produce-token',
  consume: 'contract-consume-token',
};
let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer({
    port: 0,
    env: {
      API_TOKENS: `admin:${tokens.admin},produce:${tokens.produce},consume:${tokens.consume}`,
      API_MODE: 'production',
    },
    engine: createEngine(),
    sweepIntervalMs: 0,
  });
});

afterAll(async () => {
  await server?.close();
});

it('answers every generated request as its document says', async () => {
  const report = await checkContract({
    base: server.url,
    tokens,
    runs: Number(process.env.CONTRACT_RUNS ?? 3000),
    ...(process.env.CONTRACT_SEED === undefined ? {} : { seed: Number(process.env.CONTRACT_SEED) }),
    budgetMs: 10_000,
  });
  // The run reached every operation's success and its refusals, not only the validator.
  const operations = [...report.operations];
  for (const status of ['200', '201', '400', '401', '403', '404']) {
    expect(report.statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(20);
  }
  for (const id of [
    'produceMessages',
    'consumeMessages',
    'ackMessages',
    'nackMessages',
    'extendLeases',
    'reclaimMessages',
  ]) {
    expect(
      operations.some((entry) => entry.startsWith(`${id} 2`)),
      id,
    ).toBe(true);
  }
}, 240_000);

/** runScript: EVALSHA first, EVAL only after NOSCRIPT, other errors passed on. */
import { expect, it } from 'vitest';
import { type RedisClient, RedisReplyError, RedisUnavailableError } from '../../lib/redis/client.ts';
import { runScript } from '../../lib/redis/run-script.ts';

const script = { name: 'demo', sha: 'a'.repeat(40), source: 'return 1' };

function stub(evalsha: () => Promise<unknown>): RedisClient & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    evalsha: async () => {
      log.push('evalsha');
      return (await evalsha()) as never;
    },
    eval: async () => {
      log.push('eval');
      return 'from eval';
    },
  };
}

it('sends only EVALSHA when the script is cached', async () => {
  const client = stub(async () => 'cached');
  expect(await runScript(client, script, [], [])).toBe('cached');
  expect(client.log).toEqual(['evalsha']);
});

it('falls back to EVAL once when the server answers NOSCRIPT', async () => {
  const client = stub(async () => {
    throw new RedisReplyError('NOSCRIPT No matching script. Please use EVAL.');
  });
  expect(await runScript(client, script, [], [])).toBe('from eval');
  expect(client.log).toEqual(['evalsha', 'eval']);
});

it('passes other errors on without retrying', async () => {
  const busy = stub(async () => {
    throw new RedisReplyError('BUSY Redis is busy running a script.');
  });
  await expect(runScript(busy, script, [], [])).rejects.toThrow('BUSY');
  const down = stub(async () => {
    throw new RedisUnavailableError('connection refused');
  });
  await expect(runScript(down, script, [], [])).rejects.toBeInstanceOf(RedisUnavailableError);
  expect([...busy.log, ...down.log]).toEqual(['evalsha', 'evalsha']);
});

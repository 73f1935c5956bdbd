/**
 * The API server the "client" benchmark talks to, in a process of its own: `npm start`'s
 * startApiServer on the TCP adapter to REDIS_URL (the redis-server BullMQ uses too), with
 * API_TOKENS and QUEUE_KEY_PREFIX from the environment. Prints its URL; SIGTERM closes it.
 * BENCH_CLIENT_SERVER_COUNTS=1 counts its Redis calls (scripts by name, blocking reads by
 * outcome) and prints them to stderr when it closes.
 */
import { Redis } from 'ioredis';
import { startApiServer } from '../../functions/node.ts';
import { closeOnSignals } from '../../functions/support/close-on-signals.ts';
import { createIoredisClient } from '../../functions/support/ioredis-client.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';
import type { RedisClient } from '../../lib/redis/client.ts';

const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const counts: Record<string, number> = {};
const count = (what: string) => {
  counts[what] = (counts[what] ?? 0) + 1;
};
const scriptNames = new Map(Object.entries(scripts).map(([name, script]) => [script.sha, name]));

function counted(client: RedisClient): RedisClient {
  const read = client.blockingRead?.bind(client);
  return {
    ...client,
    evalsha: (sha, keys, args, options) => {
      count(`evalsha ${scriptNames.get(sha) ?? sha}`);
      return client.evalsha(sha, keys, args, options);
    },
    eval: (source, keys, args, options) => {
      count('eval');
      return client.eval(source, keys, args, options);
    },
    ...(read === undefined
      ? {}
      : {
          blockingRead: async (keys, ids, blockMs, options) => {
            try {
              const arrived = await read(keys, ids, blockMs, options);
              count(`blockingRead ${arrived ? 'arrived' : 'timed out'}`);
              return arrived;
            } catch (error) {
              count('blockingRead failed');
              throw error;
            }
          },
        }),
  };
}

const redis = createIoredisClient(connection);
const server = await startApiServer({
  port: 0,
  env: process.env,
  redis: process.env.BENCH_CLIENT_SERVER_COUNTS === '1' ? counted(redis) : redis,
  sweepIntervalMs: 0,
});
console.log(`listening on ${server.url}`);
closeOnSignals({
  close: async () => {
    if (process.env.BENCH_CLIENT_SERVER_COUNTS === '1') console.error(JSON.stringify(counts));
    await server.close();
    await connection.quit();
  },
});

/**
 * The API server the "client" benchmark talks to, in a process of its own: `npm start`'s
 * startApiServer on the TCP adapter to REDIS_URL (the redis-server BullMQ uses too), with
 * API_TOKENS and QUEUE_KEY_PREFIX from the environment. Prints its URL; SIGTERM closes it.
 */
import { Redis } from 'ioredis';
import { startApiServer } from '../../functions/node.ts';
import { closeOnSignals } from '../../functions/support/close-on-signals.ts';
import { createIoredisClient } from '../../functions/support/ioredis-client.ts';

const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const server = await startApiServer({
  port: 0,
  env: process.env,
  redis: createIoredisClient(connection),
  sweepIntervalMs: 0,
});
console.log(`listening on ${server.url}`);
closeOnSignals({
  close: async () => {
    await server.close();
    await connection.quit();
  },
});

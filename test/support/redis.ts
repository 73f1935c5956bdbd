/**
 * Finds the real redis-server the differential and adapter suites compare against.
 * With REQUIRE_REDIS=1 (CI) a missing server is a failure; otherwise those suites are skipped and
 * say so once.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const REQUIRE_REDIS = process.env.REQUIRE_REDIS === '1';

async function probe(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const available = await probe();
if (!available && REQUIRE_REDIS) {
  throw new Error(`REQUIRE_REDIS=1 but no Redis answers at ${REDIS_URL}`);
}
if (!available) {
  console.warn(`[skip] no Redis at ${REDIS_URL}: suites that compare with real Redis are skipped`);
}

/** True when a real Redis answers at REDIS_URL. */
export const redisAvailable = available;

/** The keys under `prefix` (a test's QUEUE_KEY_PREFIX) on the Redis at REDIS_URL; with `remove`, deleted. */
export async function keysUnder(prefix: string, remove = false): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (remove && keys.length > 0) await redis.del(...keys);
    return keys;
  } finally {
    redis.disconnect();
  }
}

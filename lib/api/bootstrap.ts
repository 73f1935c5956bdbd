/**
 * Everything an entry point does after reading its environment: the queue service on a Redis
 * seam, the tokens, the health probe, the app. Kept here so Workers, Deno and Node wire the same
 * way and their entry files stay a few lines of environment reading.
 */
import { type Clock, systemClock } from '../clock.ts';
import { QueueError, QueueErrorCode } from '../queue/errors.ts';
import { DEFAULT_TIMEOUTS } from '../queue/rules.ts';
import { createQueueService } from '../queue/service.ts';
import type { QueueService } from '../queue/types.ts';
import type { RedisClient } from '../redis/client.ts';
import { withDeadline } from '../redis/deadline.ts';
import { createApp } from './app.ts';
import { resolveTokens } from './auth.ts';
import type { ApiApp, Logger } from './context.ts';
import type { Settings } from './settings.ts';

export interface Service {
  app: ApiApp;
  queue: QueueService;
  /** Set when development mode made up a token because none was configured. */
  devToken?: string;
  settings: Settings;
}

/**
 * What an entry point checks once at start: whether Redis answers. Refused credentials reject
 * (REDIS_AUTH_FAILED: the entry point should stop and say so); a Redis that does not answer yet
 * resolves 'down', since it may come up after the service.
 */
export async function probeRedis(queue: QueueService): Promise<'up' | 'down'> {
  try {
    await queue.ping();
    return 'up';
  } catch (error) {
    if (error instanceof QueueError && error.code === QueueErrorCode.redisAuthFailed) throw error;
    return 'down';
  }
}

/**
 * Builds the service. Rejects (the entry point should exit) when production mode has no tokens or
 * a token shorter than 16 characters.
 * @example
 * const { app, queue } = await buildService({ redis, settings: readSettings(env, 'production') });
 */
export async function buildService(options: {
  redis: RedisClient;
  settings: Settings;
  clock?: Clock;
  logger?: Logger;
  /** Development mode without API_TOKENS: use this admin token instead of a new random one. */
  devToken?: string;
}): Promise<Service> {
  const { settings } = options;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...settings.timeouts };
  const redis = withDeadline(options.redis, timeouts.redisTimeoutMs);
  const clock = options.clock ?? systemClock;
  const { tokens, devToken } = await resolveTokens(settings.tokenSpec, settings.mode, options.devToken);
  const queue = createQueueService({
    redis,
    clock,
    defaults: settings.queueDefaults,
    limits: settings.limits,
    ...(settings.keyPrefix === undefined ? {} : { keyPrefix: settings.keyPrefix }),
  });
  const app = createApp({
    queue,
    tokens,
    health: () => queue.ping().then(() => true),
    timeouts,
    limits: settings.limits,
    bodyTimeoutMs: settings.bodyTimeoutMs,
    corsOrigins: settings.corsOrigins,
    clock,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(settings.sqs === undefined ? {} : { sqs: settings.sqs }),
  });
  return { app, queue, settings, ...(devToken === undefined ? {} : { devToken }) };
}

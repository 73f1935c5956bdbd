/** Settings parsed from an environment map; bad values stop the service at start. */
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/api/settings.ts';

describe('readSettings', () => {
  it('takes the fallback mode and defaults when nothing is set', () => {
    expect(readSettings({}, 'production')).toEqual({
      mode: 'production',
      tokenSpec: '',
      limits: {},
      timeouts: {},
      queueDefaults: {},
      keyPrefix: undefined,
      sweepTimeBudgetMs: 20_000,
      sweepRevisitMs: 300_000,
    });
  });

  it('reads tokens, mode, limits, queue defaults, key prefix and sweep budget', () => {
    const settings = readSettings(
      {
        SWEEP_REVISIT_MS: '120000',
        API_MODE: 'development',
        API_TOKENS: 'admin:x',
        MAX_MESSAGE_BYTES: '1024',
        MAX_REQUEST_BYTES: '4096',
        REDIS_TIMEOUT_MS: '1500',
        REQUEST_TIMEOUT_MS: '8000',
        QUEUE_VISIBILITY_TIMEOUT_MS: '5000',
        QUEUE_MAX_DELIVERIES: '3',
        QUEUE_DEDUP_WINDOW_MS: '0',
        QUEUE_RETENTION_MS: '60000',
        QUEUE_CONSUMER_IDLE_MS: '1000',
        QUEUE_MAX_IN_FLIGHT: '10',
        QUEUE_KEY_PREFIX: 'staging',
        SWEEP_TIME_BUDGET_MS: '5000',
      },
      'production',
    );
    expect(settings).toEqual({
      mode: 'development',
      tokenSpec: 'admin:x',
      limits: { maxMessageBytes: 1024, maxRequestBytes: 4096 },
      timeouts: { redisTimeoutMs: 1500, requestTimeoutMs: 8000 },
      queueDefaults: {
        visibilityTimeoutMs: 5000,
        maxDeliveries: 3,
        dedupWindowMs: 0,
        retentionMs: 60_000,
        consumerIdleMs: 1000,
        maxInFlightPerConsumer: 10,
      },
      keyPrefix: 'staging',
      sweepTimeBudgetMs: 5000,
      sweepRevisitMs: 120_000,
    });
  });

  it('refuses a mode it does not know and numbers that are not integers', () => {
    expect(() => readSettings({ API_MODE: 'prod' }, 'production')).toThrow(/API_MODE/);
    expect(() => readSettings({ QUEUE_MAX_DELIVERIES: '3.5' }, 'production')).toThrow(/QUEUE_MAX_DELIVERIES/);
    expect(() => readSettings({ MAX_REQUEST_BYTES: '-1' }, 'production')).toThrow(/MAX_REQUEST_BYTES/);
  });

  it('treats empty strings as unset', () => {
    expect(
      readSettings({ API_MODE: '', QUEUE_MAX_DELIVERIES: ' ', QUEUE_KEY_PREFIX: '' }, 'development'),
    ).toMatchObject({
      mode: 'development',
      queueDefaults: {},
      keyPrefix: undefined,
    });
  });
});

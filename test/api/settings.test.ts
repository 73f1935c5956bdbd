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
      bodyTimeoutMs: 10_000,
      corsOrigins: [],
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
        BODY_TIMEOUT_MS: '2500',
        CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,https://app.example.com',
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
      bodyTimeoutMs: 2500,
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
    });
  });

  it('refuses a mode it does not know and numbers that are not integers', () => {
    expect(() => readSettings({ API_MODE: 'prod' }, 'production')).toThrow(/API_MODE/);
    expect(() => readSettings({ QUEUE_MAX_DELIVERIES: '3.5' }, 'production')).toThrow(/QUEUE_MAX_DELIVERIES/);
    expect(() => readSettings({ MAX_REQUEST_BYTES: '-1' }, 'production')).toThrow(/MAX_REQUEST_BYTES/);
  });

  it('reads QUEUE_RATE_LIMIT and QUEUE_KEY_RATE_LIMIT as max/periodMs or none, refusing anything else', () => {
    expect(
      readSettings({ QUEUE_RATE_LIMIT: '100/1000', QUEUE_KEY_RATE_LIMIT: 'none' }, 'production')
        .queueDefaults,
    ).toEqual({ rateLimit: { max: 100, periodMs: 1000 }, keyRateLimit: null });
    for (const bad of ['0/1000', '100', '100/0', '100/86400001', '1.5/1000', 'fast']) {
      expect(() => readSettings({ QUEUE_RATE_LIMIT: bad }, 'production')).toThrow(
        /QUEUE_RATE_LIMIT must be <max>\/<periodMs>/,
      );
    }
  });

  it('refuses BODY_TIMEOUT_MS out of its bounds, naming it', () => {
    expect(() => readSettings({ BODY_TIMEOUT_MS: '0' }, 'production')).toThrow(
      'BODY_TIMEOUT_MS must be an integer from 1 to 600000',
    );
    expect(() => readSettings({ BODY_TIMEOUT_MS: '10s' }, 'production')).toThrow(/BODY_TIMEOUT_MS/);
  });

  it('takes CORS_ORIGINS "*" in development only', () => {
    expect(readSettings({ CORS_ORIGINS: '*' }, 'development').corsOrigins).toEqual(['*']);
    expect(() => readSettings({ CORS_ORIGINS: '*' }, 'production')).toThrow(
      'CORS_ORIGINS entry 1 is "*", which production mode refuses: list the origins that may call the API',
    );
    expect(() =>
      readSettings({ API_MODE: 'production', CORS_ORIGINS: 'https://a.example, *' }, 'development'),
    ).toThrow(/CORS_ORIGINS entry 2 is "\*"/);
  });

  it('refuses a CORS_ORIGINS entry that is not an origin, by position and without its value', () => {
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'app.example.com',
      'ftp://files.example.com',
      'https://APP.example.com',
      'https://app.example.com:443',
      'null',
    ]) {
      let message = '';
      try {
        readSettings({ CORS_ORIGINS: `https://ok.example.com,${bad}` }, 'development');
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, bad).toMatch(/^CORS_ORIGINS entry 2 is not an origin/);
      expect(message).not.toContain(bad);
    }
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

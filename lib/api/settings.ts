/**
 * The service's settings, parsed from a plain string map. Entry points pass their environment
 * (`process.env`, `Deno.env.toObject()`, a Worker's `env`); this module never reads one itself.
 */
import type { QueueConfig } from '../queue/types.ts';
import type { Limits } from './context.ts';

export type Mode = 'production' | 'development';

export interface Settings {
  mode: Mode;
  /** `API_TOKENS` as given: comma-separated `scope:token` pairs. */
  tokenSpec: string;
  limits: Partial<Limits>;
  /** Config of queues that set nothing themselves. */
  queueDefaults: Partial<QueueConfig>;
  keyPrefix: string | undefined;
  /** Wall-clock budget of one scheduled sweep. */
  sweepTimeBudgetMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

function assign<T extends object>(target: T, key: keyof T, value: T[keyof T] | undefined): void {
  if (value !== undefined) target[key] = value;
}

/**
 * Reads the settings; `fallbackMode` applies when `API_MODE` is unset (Workers and Deno Deploy
 * pass 'production', `npm start` passes 'development' unless NODE_ENV=production).
 * @example readSettings({ API_TOKENS: 'admin:s3cret', QUEUE_MAX_DELIVERIES: '3' }, 'production')
 */
export function readSettings(env: Env, fallbackMode: Mode): Settings {
  const modeText = env.API_MODE?.trim() || fallbackMode;
  if (modeText !== 'production' && modeText !== 'development') {
    throw new Error(`API_MODE must be production or development, got "${modeText}"`);
  }
  const limits: Partial<Limits> = {};
  assign(limits, 'maxMessageBytes', int(env, 'MAX_MESSAGE_BYTES'));
  assign(limits, 'maxRequestBytes', int(env, 'MAX_REQUEST_BYTES'));
  const queueDefaults: Partial<QueueConfig> = {};
  assign(queueDefaults, 'visibilityTimeoutMs', int(env, 'QUEUE_VISIBILITY_TIMEOUT_MS'));
  assign(queueDefaults, 'maxDeliveries', int(env, 'QUEUE_MAX_DELIVERIES'));
  assign(queueDefaults, 'dedupWindowMs', int(env, 'QUEUE_DEDUP_WINDOW_MS'));
  assign(queueDefaults, 'retentionMs', int(env, 'QUEUE_RETENTION_MS'));
  assign(queueDefaults, 'consumerIdleMs', int(env, 'QUEUE_CONSUMER_IDLE_MS'));
  assign(queueDefaults, 'maxInFlightPerConsumer', int(env, 'QUEUE_MAX_IN_FLIGHT'));
  return {
    mode: modeText,
    tokenSpec: env.API_TOKENS ?? '',
    limits,
    queueDefaults,
    keyPrefix: env.QUEUE_KEY_PREFIX?.trim() || undefined,
    sweepTimeBudgetMs: int(env, 'SWEEP_TIME_BUDGET_MS') ?? 20_000,
  };
}

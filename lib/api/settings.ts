/**
 * The service's settings, parsed from a plain string map. Entry points pass their environment
 * (`process.env`, `Deno.env.toObject()`, a Worker's `env`); this module never reads one itself.
 * The variables of the queue defaults and limits come from lib/queue/rules.ts, with their bounds.
 * The HTTP edge's own settings (CORS_ORIGINS, BODY_TIMEOUT_MS) have their rules here: they are the
 * API's, not the queue's. An error names the variable and the rule, never the value: a secret
 * pasted into the wrong variable must not end up in a log.
 */
import {
  CALL_RULES,
  CONFIG_FIELD_NAMES,
  CONFIG_FIELDS,
  type ConfigField,
  DEFAULT_SWEEP_REVISIT_MS,
  decodeRateLimit,
  type IntRule,
  isNameFieldValue,
  LIMIT_RULES,
  type Limits,
  type QueueConfig,
  RATE_LIMIT_RULES,
  type RateLimit,
  TIMEOUT_RULES,
  type Timeouts,
} from '../queue/rules.ts';
import { readSqsSettings, type SqsSettings } from '../sqs/settings.ts';

export type Mode = 'production' | 'development';

/** BODY_TIMEOUT_MS: how long a request body may take to arrive, counted from its headers. */
export const BODY_TIMEOUT_RULE = {
  env: 'BODY_TIMEOUT_MS',
  min: 1,
  max: 10 * 60_000,
  default: 10_000,
} as const;

/** CORS_ORIGINS' wildcard: any origin (development only). */
export const ANY_ORIGIN = '*';

export interface Settings {
  mode: Mode;
  /** `API_TOKENS` as given: comma-separated `scope:token` pairs. */
  tokenSpec: string;
  limits: Partial<Limits>;
  timeouts: Partial<Timeouts>;
  /** Config of queues that set nothing themselves. */
  queueDefaults: Partial<QueueConfig>;
  keyPrefix: string | undefined;
  /** Wall-clock budget of one scheduled sweep. */
  sweepTimeBudgetMs: number;
  /** How long a scheduled sweep skips a queue it found idle (SWEEP_REVISIT_MS, issue 18). */
  sweepRevisitMs: number;
  /** The SQS endpoint's settings (SQS_CREDENTIALS, SQS_ACCOUNT_ID, SQS_REGION); unset without keys. */
  sqs?: SqsSettings;
  /** BODY_TIMEOUT_MS: past it a body still arriving is answered 408. */
  bodyTimeoutMs: number;
  /** CORS_ORIGINS: the origins browsers may call from (`*`: any); empty: no CORS at all. */
  corsOrigins: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

function int(env: Env, name: string, rule: IntRule): number | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < rule.min || Number(raw) > rule.max) {
    throw new Error(`${name} must be an integer from ${rule.min} to ${rule.max}`);
  }
  const value = Number(raw);
  return value;
}

function field(env: Env, field: ConfigField): number | string | RateLimit | null | undefined {
  if (field.kind === 'int') return int(env, field.env, field);
  const raw = text(env, field.env);
  if (field.kind === 'rate') {
    if (raw === undefined) return undefined;
    const limit = raw === 'none' ? null : decodeRateLimit(raw);
    if (limit === undefined) {
      const { max, periodMs } = RATE_LIMIT_RULES;
      throw new Error(
        `${field.env} must be <max>/<periodMs> (max from ${max.min} to ${max.max}, periodMs from ${periodMs.min} to ${periodMs.max}) or none`,
      );
    }
    return limit;
  }
  if (field.kind === 'name') {
    if (raw !== undefined && !isNameFieldValue(raw)) throw new Error(`${field.env} must be a queue name`);
    return raw;
  }
  if (raw !== undefined && !field.values.includes(raw)) {
    throw new Error(`${field.env} must be one of ${field.values.join(', ')}`);
  }
  return raw;
}

/**
 * CORS_ORIGINS: comma-separated origins exactly as browsers send them (`https://app.example.com`,
 * with a port when it is not the scheme's default), or `*` outside production.
 */
function corsOrigins(env: Env, mode: Mode): string[] {
  const raw = text(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  const origins: string[] = [];
  let position = 0;
  for (const item of raw.split(',')) {
    const origin = item.trim();
    if (origin === '') continue;
    position++;
    if (origin === ANY_ORIGIN) {
      if (mode === 'production') {
        throw new Error(
          `CORS_ORIGINS entry ${position} is "*", which production mode refuses: list the origins that may call the API`,
        );
      }
    } else if (!isOrigin(origin)) {
      throw new Error(
        `CORS_ORIGINS entry ${position} is not an origin: write scheme://host or scheme://host:port (http or https, no path, no trailing slash)`,
      );
    }
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
}

/** Whether `text` is a serialised http(s) origin, as a browser's Origin header carries it. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text;
  } catch {
    return false;
  }
}

/**
 * Reads the settings; `fallbackMode` applies when `API_MODE` is unset (Workers and Deno Deploy
 * pass 'production', `npm start` passes 'development' unless NODE_ENV=production).
 * @example readSettings({ API_TOKENS: 'admin:s3cret', QUEUE_MAX_DELIVERIES: '3' }, 'production')
 */
export function readSettings(env: Env, fallbackMode: Mode): Settings {
  const modeText = env.API_MODE?.trim() || fallbackMode;
  if (modeText !== 'production' && modeText !== 'development') {
    throw new Error('API_MODE must be production or development');
  }
  const limits: Record<string, number> = {};
  for (const [name, rule] of Object.entries(LIMIT_RULES)) {
    const value = int(env, rule.env, rule);
    if (value !== undefined) limits[name] = value;
  }
  const timeouts: Record<string, number> = {};
  for (const [name, rule] of Object.entries(TIMEOUT_RULES)) {
    const value = int(env, rule.env, rule);
    if (value !== undefined) timeouts[name] = value;
  }
  const queueDefaults: Record<string, number | string | RateLimit | null> = {};
  for (const name of CONFIG_FIELD_NAMES) {
    const value = field(env, CONFIG_FIELDS[name]);
    if (value !== undefined) queueDefaults[name] = value;
  }
  const sqs = readSqsSettings(env);
  return {
    mode: modeText,
    tokenSpec: env.API_TOKENS ?? '',
    limits: limits as Partial<Limits>,
    timeouts: timeouts as Partial<Timeouts>,
    queueDefaults: queueDefaults as Partial<QueueConfig>,
    keyPrefix: text(env, 'QUEUE_KEY_PREFIX'),
    sweepTimeBudgetMs: int(env, 'SWEEP_TIME_BUDGET_MS', CALL_RULES.sweepTimeBudgetMs) ?? 20_000,
    sweepRevisitMs: int(env, 'SWEEP_REVISIT_MS', CALL_RULES.sweepRevisitMs) ?? DEFAULT_SWEEP_REVISIT_MS,
    ...(sqs.credentials.length > 0 ? { sqs } : {}),
    bodyTimeoutMs: int(env, BODY_TIMEOUT_RULE.env, BODY_TIMEOUT_RULE) ?? BODY_TIMEOUT_RULE.default,
    corsOrigins: corsOrigins(env, modeText),
  };
}

/**
 * How long a message whose handler threw waits before it is delivered again. In order: a delay
 * the error names (`retryAfterMs` or `delayMs`, e.g. a QueueApiError carrying Retry-After), the
 * worker's `retryDelayMs` option, else undefined: the nack then names no delay and the queue's
 * retry backoff (its `retryBackoff`, `retryDelayMs` and `retryMaxDelayMs` config) chooses it. A
 * service from before retry backoff (no `retryBackoff` in its config) that names a `retryDelayMs`
 * has that honoured as it is, else 0.
 */
import { CALL_RULES } from '../queue/rules.ts';
import type { Message, QueueConfig } from './types.ts';

/** A fixed delay, or one chosen per failure (undefined: fall through to the queue's config). */
export type RetryDelayOption = number | ((message: Message, error: unknown) => number | undefined);

const clamp = (ms: number) =>
  Math.min(CALL_RULES.delayMs.max, Math.max(CALL_RULES.delayMs.min, Math.round(ms)));

const isDelay = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The delay an error asks for itself, if any. */
export function delayNamedBy(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { retryAfterMs, delayMs } = error as { retryAfterMs?: unknown; delayMs?: unknown };
  if (isDelay(retryAfterMs)) return retryAfterMs;
  if (isDelay(delayMs)) return delayMs;
  return undefined;
}

/**
 * The nack delay for a failed delivery.
 * @example retryDelayFor(Object.assign(new Error('busy'), { delayMs: 2000 }), message, 100, config) // 2000
 */
export function retryDelayFor(
  error: unknown,
  message: Message,
  option: RetryDelayOption | undefined,
  config: QueueConfig | undefined,
): number | undefined {
  const named = delayNamedBy(error);
  if (named !== undefined) return clamp(named);
  const chosen = typeof option === 'function' ? option(message, error) : option;
  if (isDelay(chosen)) return clamp(chosen);
  const stored = (config ?? {}) as Record<string, unknown>;
  if (typeof stored.retryBackoff === 'string') return undefined;
  if (isDelay(stored.retryDelayMs)) return clamp(stored.retryDelayMs);
  return 0;
}

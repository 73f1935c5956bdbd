/** Queue config defaults and the conversion between the stored record and `QueueConfig`. */
import type { QueueConfig } from './types.ts';

export const DEFAULT_CONFIG: QueueConfig = {
  visibilityTimeoutMs: 30_000,
  maxDeliveries: 5,
  dedupWindowMs: 5 * 60_000,
  retentionMs: 0,
  consumerIdleMs: 60 * 60_000,
  maxInFlightPerConsumer: 1000,
};

/** The order the scripts read defaults from ARGV (include/common.lua's CONFIG_FIELDS). */
export const CONFIG_FIELDS = [
  'visibilityTimeoutMs',
  'maxDeliveries',
  'dedupWindowMs',
  'retentionMs',
  'consumerIdleMs',
  'maxInFlightPerConsumer',
] as const satisfies readonly (keyof QueueConfig)[];

/** Inclusive bounds each field must respect. */
export const CONFIG_BOUNDS: Record<keyof QueueConfig, readonly [number, number]> = {
  visibilityTimeoutMs: [1, 12 * 60 * 60_000],
  maxDeliveries: [1, 1000],
  dedupWindowMs: [0, 7 * 24 * 60 * 60_000],
  retentionMs: [0, 365 * 24 * 60 * 60_000],
  consumerIdleMs: [1, 365 * 24 * 60 * 60_000],
  maxInFlightPerConsumer: [1, 100_000],
};

export function configArgs(config: QueueConfig): string[] {
  return CONFIG_FIELDS.map((field) => String(config[field]));
}

/** Stored overrides (a flat field/value list) over the defaults. */
export function configFromStored(flat: readonly string[], defaults: QueueConfig): QueueConfig {
  const config = { ...defaults };
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = flat[i] as keyof QueueConfig;
    if ((CONFIG_FIELDS as readonly string[]).includes(field)) config[field] = Number(flat[i + 1]);
  }
  return config;
}

/**
 * The stored config record and `QueueConfig`: a queue's config hash holds the fields it has
 * overridden (as strings, beside bookkeeping fields such as `epoch`); every other field takes the
 * deployment's default.
 */
import {
  CONFIG_FIELD_NAMES,
  CONFIG_FIELDS,
  type ConfigField,
  type ConfigFieldName,
  decodeRateLimit,
  encodeRateLimit,
  isNameFieldValue,
  type QueueConfig,
  type RateLimit,
} from './rules.ts';

/** A config as the hash stores it and the scripts take it: every field a number or a string. */
export type StoredConfig = { [K in ConfigFieldName]: number | string };

/** A config field's value in its stored form (a rate limit as `<max>/<periodMs>`, '' for none). */
export function storedValue(name: ConfigFieldName, value: QueueConfig[ConfigFieldName]): number | string {
  if ((CONFIG_FIELDS[name] as ConfigField).kind === 'rate') return encodeRateLimit(value as RateLimit | null);
  return value as number | string;
}

/** A config patch in its stored form: what the configure script writes. */
export function storedPatch(patch: Partial<QueueConfig>): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [name, value] of Object.entries(patch)) {
    out[name] = storedValue(name as ConfigFieldName, value as QueueConfig[ConfigFieldName]);
  }
  return out;
}

/**
 * The values a stored record's missing fields mean: the deployment's defaults, except for pinned
 * fields (`partitions`), which were stored when the queue was created and mean their pinned value
 * when absent (a queue older than the field). Scripts get this object as their `config` argument,
 * each field in its stored form.
 */
export function storedDefaults(defaults: QueueConfig): StoredConfig {
  const out = {} as Record<ConfigFieldName, number | string>;
  for (const name of CONFIG_FIELD_NAMES) {
    const field = CONFIG_FIELDS[name] as ConfigField;
    out[name] =
      field.kind === 'int' && field.pinned !== undefined ? field.pinned : storedValue(name, defaults[name]);
  }
  return out;
}

/**
 * Stored overrides (a flat field/value list) over the defaults, read as the scripts read them
 * (include/config.lua's load_config, include/rate-limit.lua): a number field whose value is not a
 * number, an enum field with a value it does not know, or a rate field with a value that is not
 * `<max>/<periodMs>` within bounds (or ''), takes the default.
 */
export function configFromStored(flat: readonly string[], defaults: QueueConfig): QueueConfig {
  const config: Record<string, number | string | RateLimit | null> = { ...defaults };
  for (const name of CONFIG_FIELD_NAMES) {
    const field = CONFIG_FIELDS[name] as ConfigField;
    if (field.kind === 'int' && field.pinned !== undefined) config[name] = field.pinned;
  }
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    if (!Object.hasOwn(CONFIG_FIELDS, name)) continue;
    const field = CONFIG_FIELDS[name as keyof typeof CONFIG_FIELDS] as ConfigField;
    if (field.kind === 'int') {
      const n = Number(value);
      if (value.trim() !== '' && Number.isFinite(n)) config[name] = n;
    } else if (field.kind === 'name') {
      if (isNameFieldValue(value)) config[name] = value;
    } else if (field.kind === 'rate') {
      const limit = decodeRateLimit(value);
      if (limit !== undefined) config[name] = limit;
    } else if (field.values.includes(value)) {
      config[name] = value;
    }
  }
  return config as QueueConfig;
}

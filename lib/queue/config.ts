/**
 * The stored config record and `QueueConfig`: a queue's config hash holds the fields it has
 * overridden (as strings, beside bookkeeping fields such as `epoch`); every other field takes the
 * deployment's default.
 */
import {
  CONFIG_FIELD_NAMES,
  CONFIG_FIELDS,
  type ConfigField,
  isNameFieldValue,
  type QueueConfig,
} from './rules.ts';

/**
 * The values a stored record's missing fields mean: the deployment's defaults, except for pinned
 * fields (`partitions`), which were stored when the queue was created and mean their pinned value
 * when absent (a queue older than the field). Scripts get this object as their `config` argument.
 */
export function storedDefaults(defaults: QueueConfig): QueueConfig {
  const out: Record<string, number | string> = { ...defaults };
  for (const name of CONFIG_FIELD_NAMES) {
    const field = CONFIG_FIELDS[name] as ConfigField;
    if (field.kind === 'int' && field.pinned !== undefined) out[name] = field.pinned;
  }
  return out as QueueConfig;
}

/**
 * Stored overrides (a flat field/value list) over the defaults, read as the scripts read them
 * (include/config.lua's load_config): a number field whose value is not a number, or an enum
 * field with a value it does not know, takes the default.
 */
export function configFromStored(flat: readonly string[], defaults: QueueConfig): QueueConfig {
  const config: Record<string, number | string> = storedDefaults(defaults);
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
    } else if (field.values.includes(value)) {
      config[name] = value;
    }
  }
  return config as QueueConfig;
}

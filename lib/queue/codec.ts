/**
 * Turns stream entries (flat field lists) into `Message` and `DeadLetter` values. Entries this
 * queue wrote have exactly `body`, `enqueuedAt` and maybe `attributes`; anything else was written
 * by another client and is delivered as raw `fields`.
 */
import type { DeadLetter, Message } from './types.ts';

const DLQ_FIELDS = ['dlq.from', 'dlq.group', 'dlq.deliveries', 'dlq.reason', 'dlq.at'] as const;

function toFields(flat: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

function idTime(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

export function decodeMessage(id: string, flat: readonly string[], deliveries: number): Message {
  const fields = toFields(flat);
  const names = Object.keys(fields);
  const ours =
    fields.body !== undefined &&
    fields.enqueuedAt !== undefined &&
    /^-?\d+$/.test(fields.enqueuedAt) &&
    names.every((name) => name === 'body' || name === 'enqueuedAt' || name === 'attributes');
  if (ours) {
    try {
      const body: unknown = JSON.parse(fields.body as string);
      const attributes =
        fields.attributes === undefined ? {} : (JSON.parse(fields.attributes) as Record<string, string>);
      return { id, body, attributes, deliveries, enqueuedAt: Number(fields.enqueuedAt) };
    } catch {
      // Not valid JSON after all: deliver it as a foreign entry below.
    }
  }
  return { id, body: null, attributes: {}, deliveries, enqueuedAt: idTime(id), fields };
}

export function decodeDeadLetter(id: string, flat: readonly string[]): DeadLetter {
  const all = toFields(flat);
  const meta: Record<string, string> = {};
  const rest: string[] = [];
  for (const [name, value] of Object.entries(all)) {
    if ((DLQ_FIELDS as readonly string[]).includes(name)) meta[name] = value;
    else rest.push(name, value);
  }
  const message = decodeMessage(id, rest, Number(meta['dlq.deliveries'] ?? 0));
  return {
    ...message,
    deadLetteredFrom: meta['dlq.from'] ?? '',
    group: meta['dlq.group'] ?? '',
    deliveries: Number(meta['dlq.deliveries'] ?? 0),
    reason: meta['dlq.reason'] ?? '',
    deadLetteredAt: Number(meta['dlq.at'] ?? 0),
  };
}

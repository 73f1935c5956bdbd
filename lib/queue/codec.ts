/**
 * Turns stream entries (flat field lists) into `Message` and `DeadLetter` values. Entries this
 * queue wrote have exactly `body`, `enqueuedAt` and maybe `attributes`, `expiresAt` and
 * `groupKey`; anything else — written by
 * another client, not JSON, nested deeper than the queue accepts, attributes that are not an
 * object of strings — is delivered as raw `fields` (body null), so no entry can fail a read.
 */
import { encodeId } from './partitions/ids.ts';
import { JSON_DEPTH_RULE, jsonNestsDeeperThan } from './rules.ts';
import type { DeadLetter, Message } from './types.ts';

const DLQ_FIELDS = ['dlq.from', 'dlq.group', 'dlq.deliveries', 'dlq.reason', 'dlq.at'] as const;

/** The fields of an entry this queue wrote (`groupKey` only for a message produced with one). */
const OWN_FIELDS = new Set(['body', 'enqueuedAt', 'attributes', 'expiresAt', 'groupKey']);

/** A field named `__proto__` is data here, so every field is defined, never assigned. */
function toFields(flat: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    Object.defineProperty(fields, flat[i] as string, {
      value: flat[i + 1],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return fields;
}

function parseJson(text: string): { value: unknown } | undefined {
  if (jsonNestsDeeperThan(text, JSON_DEPTH_RULE.max)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === 'string')
  );
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
    names.every((name) => OWN_FIELDS.has(name)) &&
    (fields.groupKey === undefined || fields.groupKey !== '');
  if (ours) {
    const body = parseJson(fields.body as string);
    const attributes = fields.attributes === undefined ? { value: {} } : parseJson(fields.attributes);
    if (body !== undefined && attributes !== undefined && isStringRecord(attributes.value)) {
      return {
        id,
        body: body.value,
        attributes: attributes.value,
        deliveries,
        enqueuedAt: Number(fields.enqueuedAt),
        ...(fields.groupKey === undefined ? {} : { groupKey: fields.groupKey }),
      };
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

/** A dead letter read in partition p (its raw id and fields), with its ids in the queue's form. */
export function decodeDeadLetterIn(p: number, id: string, flat: readonly string[]): DeadLetter {
  const letter = decodeDeadLetter(encodeId(id, p), flat);
  const from = letter.deadLetteredFrom;
  return { ...letter, deadLetteredFrom: from === '' ? from : encodeId(from, p) };
}

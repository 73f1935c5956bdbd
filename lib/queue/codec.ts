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
  // The entry's own fields read straight from the list (a later duplicate wins, as in `toFields`);
  // the `fields` object is built only for an entry that is not ours, which is the only one that
  // shows it (defining every field of every message was most of a consume's decoding).
  let text: string | undefined;
  let enqueuedAt: string | undefined;
  let attributesText: string | undefined;
  let groupKey: string | undefined;
  let onlyOwn = true;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const value = flat[i + 1] as string;
    switch (flat[i]) {
      case 'body':
        text = value;
        break;
      case 'enqueuedAt':
        enqueuedAt = value;
        break;
      case 'attributes':
        attributesText = value;
        break;
      case 'groupKey':
        groupKey = value;
        break;
      case 'expiresAt':
        break;
      default:
        onlyOwn = false;
    }
  }
  const ours =
    onlyOwn &&
    text !== undefined &&
    enqueuedAt !== undefined &&
    /^-?\d+$/.test(enqueuedAt) &&
    (groupKey === undefined || groupKey !== '');
  if (ours) {
    const body = parseJson(text as string);
    const attributes = attributesText === undefined ? { value: {} } : parseJson(attributesText);
    if (body !== undefined && attributes !== undefined && isStringRecord(attributes.value)) {
      return {
        id,
        body: body.value,
        attributes: attributes.value,
        deliveries,
        enqueuedAt: Number(enqueuedAt),
        ...(groupKey === undefined ? {} : { groupKey }),
      };
    }
  }
  return { id, body: null, attributes: {}, deliveries, enqueuedAt: idTime(id), fields: toFields(flat) };
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

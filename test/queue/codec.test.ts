/**
 * decodeMessage reads an entry's own fields straight from its field list; this holds it to the
 * object-based reading it replaced (kept here as the reference) on entries of every kind.
 */
import { expect, it } from 'vitest';
import { decodeMessage } from '../../lib/queue/codec.ts';
import { JSON_DEPTH_RULE, jsonNestsDeeperThan } from '../../lib/queue/rules.ts';

const OWN_FIELDS = new Set(['body', 'enqueuedAt', 'attributes', 'expiresAt', 'groupKey']);

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

/** The reading before issue 27's phase 2. */
function reference(id: string, flat: readonly string[], deliveries: number): unknown {
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
    const value = attributes?.value;
    const stringRecord =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.values(value).every((item) => typeof item === 'string');
    if (body !== undefined && attributes !== undefined && stringRecord) {
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
  return { id, body: null, attributes: {}, deliveries, enqueuedAt: Number(id.split('-')[0]), fields };
}

const names = [
  'body',
  'enqueuedAt',
  'attributes',
  'expiresAt',
  'groupKey',
  '__proto__',
  'other',
  'constructor',
];
const values = [
  '{"order":42}',
  '12',
  '-3',
  '1.5',
  '',
  '{"a":"b"}',
  '{"a":1}',
  '[1]',
  'not json',
  '"text"',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
];

it.each([
  ['a message of ours', ['body', '{"order":42}', 'enqueuedAt', '1700000000000']],
  [
    'with attributes and a group key',
    ['body', '1', 'enqueuedAt', '5', 'attributes', '{"k":"v"}', 'groupKey', 'g'],
  ],
  ['with expiresAt', ['body', 'null', 'enqueuedAt', '5', 'expiresAt', '9']],
  ['a foreign field', ['body', '1', 'enqueuedAt', '5', 'x', 'y']],
  ['a __proto__ field', ['__proto__', '{"a":1}', 'body', '1', 'enqueuedAt', '5']],
  ['an empty group key', ['body', '1', 'enqueuedAt', '5', 'groupKey', '']],
  ['a duplicate body', ['body', 'not json', 'enqueuedAt', '5', 'body', '2']],
  ['an odd-length list', ['body', '1', 'enqueuedAt', '5', 'dangling']],
  ['no fields', []],
])('%s: decoded as before', (_, flat) => {
  expect(decodeMessage('1700000000000-0', flat, 2)).toEqual(reference('1700000000000-0', flat, 2));
});

it('decodes random field lists as before', () => {
  let seed = 11;
  const pick = <T>(list: readonly T[]): T => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return list[seed % list.length] as T;
  };
  for (let n = 0; n < 2000; n++) {
    const flat: string[] = [];
    const length = pick([0, 1, 2, 2, 3, 3, 4, 5]);
    for (let i = 0; i < length; i++) flat.push(pick(names), pick(values));
    if (pick([true, false, false])) flat.push(pick(names));
    const decoded = decodeMessage('1700000000000-3', flat, 1);
    expect(decoded).toEqual(reference('1700000000000-3', flat, 1));
    expect(Object.getPrototypeOf(decoded.fields ?? {})).toBe(Object.prototype);
  }
});

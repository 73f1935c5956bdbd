/**
 * SQS message attributes: their rules (names, data types, values), their size as SQS counts it,
 * their wire form and MD5OfMessageAttributes exactly as AWS computes it (shared/reference/sqs.md
 * §6): names sorted, each name, data type and value length-prefixed, a transport byte between.
 * Binary values are kept as canonical base64 here, as they travel and as they are stored.
 */
import { base64ToBytes, bytesToBase64 } from './base64.ts';
import { invalidValue, SqsError, SqsErrorCode } from './errors.ts';
import { md5Hex } from './md5.ts';
import { setOwn } from './own-property.ts';
import { isSqsText, utf8, utf8Length } from './text.ts';

/** One attribute: its full data type (`String`, `Number.int`, `Binary.png`…) and value. */
export interface SqsAttribute {
  dataType: string;
  /** The text of a String or Number; canonical base64 of a Binary's bytes. */
  value: string;
}

export type SqsAttributes = Record<string, SqsAttribute>;

/** The wire form (JSON and the query protocol alike, Binary as base64). */
export interface WireAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

export const MAX_MESSAGE_ATTRIBUTES = 10;
const namePattern = /^[A-Za-z0-9_.-]{1,256}$/;
const dataTypePattern = /^(String|Number|Binary)(\.[A-Za-z0-9_.-]+)?$/;
const numberPattern = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** The only system attribute SQS takes on send. */
export const SYSTEM_ATTRIBUTE_NAMES = ['AWSTraceHeader'] as const;

export function isBinaryType(dataType: string): boolean {
  return dataType.startsWith('Binary');
}

function checkName(name: string, kind: string): void {
  const lower = name.toLowerCase();
  if (
    !namePattern.test(name) ||
    lower.startsWith('aws.') ||
    lower.startsWith('amazon.') ||
    name.startsWith('.') ||
    name.endsWith('.') ||
    name.includes('..')
  ) {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `Message (${kind}) attribute name '${name}' is invalid. Names are 1-256 characters of A-Z a-z 0-9 _ - ., do not start with AWS. or Amazon., and have no leading, trailing or doubled period.`,
    );
  }
}

function checkNumber(name: string, value: string): void {
  const digits = value
    .replace(/[eE].*$/, '')
    .replace(/[^0-9]/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  if (!numberPattern.test(value) || digits.length > 38) {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `Could not cast message attribute '${name}' value to number: it must be a decimal of at most 38 significant digits.`,
    );
  }
}

/** One attribute from its wire form, checked; `kind` words the errors as AWS does. */
function parseOne(name: string, raw: unknown, kind: 'user' | 'system'): SqsAttribute {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalidValue(`MessageAttribute.${name}`, raw, 'must be an object with DataType and a value');
  }
  const { DataType, StringValue, BinaryValue } = raw as Record<string, unknown>;
  if (DataType === undefined || DataType === '') {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `The message attribute '${name}' must contain non-empty message attribute type.`,
    );
  }
  if (typeof DataType !== 'string' || DataType.length > 256 || !dataTypePattern.test(DataType)) {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `The type of message (${kind}) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`,
    );
  }
  const binary = isBinaryType(DataType);
  const wanted = binary ? 'Binary' : 'String';
  const empty = () =>
    new SqsError(
      SqsErrorCode.invalidParameterValue,
      `Message (${kind}) attribute '${name}' must contain a non-empty value of type '${wanted}'.`,
    );
  if (binary) {
    if (StringValue !== undefined) throw empty();
    if (typeof BinaryValue !== 'string' || BinaryValue === '') throw empty();
    const bytes = base64ToBytes(BinaryValue);
    if (bytes === undefined)
      throw invalidValue(`MessageAttribute.${name}.BinaryValue`, '(binary)', 'not base64');
    if (bytes.length === 0) throw empty();
    return { dataType: DataType, value: bytesToBase64(bytes) };
  }
  if (BinaryValue !== undefined) throw empty();
  if (typeof StringValue !== 'string' || StringValue === '') throw empty();
  if (!isSqsText(StringValue)) {
    throw new SqsError(
      SqsErrorCode.invalidMessageContents,
      `Message (${kind}) attribute '${name}' has characters outside the allowed set (#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF).`,
    );
  }
  if (DataType.startsWith('Number')) checkNumber(name, StringValue);
  return { dataType: DataType, value: StringValue };
}

/**
 * MessageAttributes of a send, checked (at most 10, names, types, values); undefined when the
 * request sent none (an empty object is none too).
 */
export function parseMessageAttributes(raw: unknown): SqsAttributes | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalidValue('MessageAttributes', raw, 'must be a map of attribute names to values');
  }
  const names = Object.keys(raw);
  if (names.length === 0) return undefined;
  if (names.length > MAX_MESSAGE_ATTRIBUTES) {
    throw new SqsError(
      SqsErrorCode.invalidParameterValue,
      `Number of message attributes [${names.length}] exceeds the allowed maximum [${MAX_MESSAGE_ATTRIBUTES}].`,
    );
  }
  const out: SqsAttributes = {};
  for (const name of names) {
    checkName(name, 'user');
    setOwn(out, name, parseOne(name, (raw as Record<string, unknown>)[name], 'user'));
  }
  return out;
}

/** MessageSystemAttributes of a send: only AWSTraceHeader, a String. */
export function parseSystemAttributes(raw: unknown): SqsAttributes | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalidValue('MessageSystemAttributes', raw, 'must be a map of attribute names to values');
  }
  const names = Object.keys(raw);
  if (names.length === 0) return undefined;
  const out: SqsAttributes = {};
  for (const name of names) {
    if (!(SYSTEM_ATTRIBUTE_NAMES as readonly string[]).includes(name)) {
      throw new SqsError(
        SqsErrorCode.invalidParameterValue,
        `Message system attribute name '${name}' is invalid. The only one is AWSTraceHeader.`,
      );
    }
    const attribute = parseOne(name, (raw as Record<string, unknown>)[name], 'system');
    if (attribute.dataType !== 'String') {
      throw new SqsError(
        SqsErrorCode.invalidParameterValue,
        `The message system attribute '${name}' must be of type 'String'.`,
      );
    }
    out[name] = attribute;
  }
  return out;
}

/** The bytes SQS counts toward the message size: each name, data type and value. */
export function attributesSize(attributes: SqsAttributes | undefined): number {
  if (attributes === undefined) return 0;
  let n = 0;
  for (const [name, { dataType, value }] of Object.entries(attributes)) {
    n += utf8Length(name) + utf8Length(dataType);
    n += isBinaryType(dataType) ? (base64ToBytes(value)?.length ?? 0) : utf8Length(value);
  }
  return n;
}

/** Names in ascending byte order (UTF-16 order differs from UTF-8's only past the BMP). */
function byteOrder(a: string, b: string): number {
  const x = utf8(a);
  const y = utf8(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

/**
 * MD5OfMessageAttributes (and MD5OfMessageSystemAttributes) of `attributes`; undefined when
 * there are none, as AWS then leaves the field out.
 */
export function attributesMd5(attributes: SqsAttributes | undefined): string | undefined {
  if (attributes === undefined) return undefined;
  const names = Object.keys(attributes).sort(byteOrder);
  if (names.length === 0) return undefined;
  const parts: Uint8Array[] = [];
  let size = 0;
  const push = (bytes: Uint8Array) => {
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, bytes.length);
    parts.push(length, bytes);
    size += 4 + bytes.length;
  };
  for (const name of names) {
    const { dataType, value } = attributes[name] as SqsAttribute;
    push(utf8(name));
    push(utf8(dataType));
    const binary = isBinaryType(dataType);
    parts.push(Uint8Array.of(binary ? 2 : 1));
    size += 1;
    push(binary ? (base64ToBytes(value) ?? new Uint8Array(0)) : utf8(value));
  }
  const buffer = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    buffer.set(part, offset);
    offset += part.length;
  }
  return md5Hex(buffer);
}

/** The wire form of attributes. */
export function attributesToWire(attributes: SqsAttributes): Record<string, WireAttribute> {
  const out: Record<string, WireAttribute> = {};
  for (const [name, { dataType, value }] of Object.entries(attributes)) {
    setOwn(
      out,
      name,
      isBinaryType(dataType)
        ? { DataType: dataType, BinaryValue: value }
        : { DataType: dataType, StringValue: value },
    );
  }
  return out;
}

/**
 * The attributes a receive asked for with MessageAttributeNames: `All` or `.*` for every one,
 * an exact name, or a prefix such as `order.*`. Undefined when none is selected.
 */
export function selectAttributes(
  attributes: SqsAttributes,
  wanted: readonly string[],
): SqsAttributes | undefined {
  if (wanted.length === 0) return undefined;
  const all = wanted.includes('All') || wanted.includes('.*');
  const prefixes = wanted.filter((name) => name.endsWith('.*')).map((name) => name.slice(0, -1));
  const exact = new Set(wanted);
  let out: SqsAttributes | undefined;
  for (const [name, attribute] of Object.entries(attributes)) {
    if (all || exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) {
      out ??= {};
      setOwn(out, name, attribute);
    }
  }
  return out;
}

/**
 * Named calls to the queue's Lua scripts. scripts/generate-lua.ts reads each script's header
 * (`KEYS:`, `ARGV:`, `Returns:`, `Errors:`) and emits, per script, its source with a prologue that
 * binds `keys.<name>` and `args.<name>`, the TypeScript types of its keys, arguments and reply, and
 * the shapes below. This module turns named keys and arguments into KEYS and ARGV and a reply into
 * an object with named fields, checking every value's type on the way: no reply is read by
 * position anywhere else.
 */
import type { RedisValue } from '../redis/client.ts';
import type { LuaScript } from '../redis/run-script.ts';
import type { QueueErrorCode } from './errors.ts';

/** How a key or argument is sent: as given, an integer's decimal text, or JSON text. */
export type ParamKind = 'string' | 'int' | 'json';

/** A variadic part: single values, or groups of named values. */
export type VariadicShape = readonly [
  name: string,
  kind: ParamKind | readonly (readonly [string, ParamKind])[],
];

export interface ParamShape {
  readonly fixed: readonly (readonly [name: string, kind: ParamKind])[];
  /**
   * Variadic parts before `rest` (KEYS only): each is as long as the ARGV list of the same name,
   * which the prologue reads first.
   */
  readonly lists?: readonly VariadicShape[];
  /** The trailing variadic part. */
  readonly rest?: VariadicShape;
}

/** How one value of a reply is read. */
export type ValueShape =
  | 'int'
  | 'string'
  | 'flag'
  | 'fields'
  | 'raw'
  | { readonly oneOf: readonly string[] }
  | { readonly nullable: ValueShape }
  | { readonly list: ValueShape }
  | { readonly tuple: TupleShape };

export interface TupleShape {
  readonly fields: readonly (readonly [name: string, shape: ValueShape])[];
  /** Every element after the fixed ones, as one list. */
  readonly rest?: readonly [name: string, shape: ValueShape];
}

/**
 * A script as the generator embeds it; the type parameters exist for the runner's signature:
 * `Scope` is what the call is about (lib/queue/keys.ts's KeyScope, the part this script needs),
 * from which the runner picks its KEYS by name.
 */
export interface ScriptBinding<Scope, Args, Reply> extends LuaScript {
  readonly keys: ParamShape;
  readonly args: ParamShape;
  readonly reply: TupleShape;
  /** The statuses the script may answer instead of 'ok'. */
  readonly errors: readonly QueueErrorCode[];
  /**
   * The config fields the script reads (`cfg.<field>`), when the generator could list them: its
   * `config` argument then carries only these, and the script looks up only these.
   */
  readonly configFields?: readonly string[];
  /** Never set: carries the types. */
  readonly types?: { scope: Scope; args: Args; reply: Reply };
}

// biome-ignore lint/suspicious/noExplicitAny: any binding, whatever its types
export type AnyScriptBinding = ScriptBinding<any, any, any>;

function encodeOne(kind: ParamKind, value: unknown, name: string): string {
  if (kind === 'int') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new TypeError(`script argument ${name} must be a safe integer`);
    }
    return String(value);
  }
  if (kind === 'json') return JSON.stringify(value);
  if (typeof value !== 'string') throw new TypeError(`script argument ${name} must be a string`);
  return value;
}

function encodeVariadic(out: string[], [name, kind]: VariadicShape, items: unknown): void {
  if (!Array.isArray(items)) throw new TypeError(`script parameter ${name} must be an array`);
  for (const item of items) {
    if (typeof kind === 'string') {
      out.push(encodeOne(kind, item, name));
      continue;
    }
    for (const [field, fieldKind] of kind) {
      out.push(encodeOne(fieldKind, (item as Record<string, unknown>)[field], `${name}.${field}`));
    }
  }
}

/** Named values → the flat KEYS or ARGV list, in the header's order. */
export function encodeParams(shape: ParamShape, values: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const [name, kind] of shape.fixed) out.push(encodeOne(kind, values[name], name));
  for (const part of shape.lists ?? []) encodeVariadic(out, part, values[part[0]]);
  if (shape.rest !== undefined) encodeVariadic(out, shape.rest, values[shape.rest[0]]);
  return out;
}

/** A reply value that does not have the shape the script's header promises. */
export class ReplyShapeError extends Error {
  override name = 'ReplyShapeError';
}

function fail(path: string, expected: string, value: unknown): never {
  const seen = Array.isArray(value) ? 'an array' : value === null ? 'nil' : typeof value;
  throw new ReplyShapeError(`${path}: expected ${expected}, got ${seen}`);
}

/**
 * A value's path in the reply, for error messages: `parent.key`, or `parent[key]` for an index.
 * Made only when a value fails or has values of its own, not for every value decoded.
 */
function pathOf(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}[${key}]` : `${parent}.${key}`;
}

function decodeValue(
  shape: ValueShape,
  value: RedisValue | undefined,
  parent: string,
  key: string | number,
): unknown {
  switch (shape) {
    case 'int':
      if (typeof value === 'number') return value;
      // Redis hands some counts over as bulk strings (XPENDING's per-consumer counts).
      if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
      return fail(pathOf(parent, key), 'an integer', value);
    case 'string':
      if (typeof value === 'string') return value;
      return fail(pathOf(parent, key), 'a string', value);
    case 'flag':
      if (value === 0 || value === 1) return value === 1;
      return fail(pathOf(parent, key), '0 or 1', value);
    case 'fields':
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
      return fail(pathOf(parent, key), 'a list of strings', value);
    case 'raw':
      return value ?? null;
  }
  if ('oneOf' in shape) {
    if (typeof value === 'string' && shape.oneOf.includes(value)) return value;
    return fail(pathOf(parent, key), `one of ${shape.oneOf.join(', ')}`, value);
  }
  if ('nullable' in shape)
    return value === null || value === undefined ? null : decodeValue(shape.nullable, value, parent, key);
  const path = pathOf(parent, key);
  if (!Array.isArray(value)) return fail(path, 'an array', value);
  if ('list' in shape) {
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) items[i] = decodeValue(shape.list, value[i], path, i);
    return items;
  }
  return decodeTuple(shape.tuple, value, 0, path);
}

/** Reads `value` from index `from` on as the tuple `shape` describes. */
export function decodeTuple(
  shape: TupleShape,
  value: readonly RedisValue[],
  from: number,
  path: string,
): unknown {
  const out: Record<string, unknown> = {};
  const { fields, rest } = shape;
  if (value.length - from < fields.length || (rest === undefined && value.length - from > fields.length)) {
    throw new ReplyShapeError(
      `${path}: expected ${fields.length}${rest === undefined ? '' : ' or more'} values, got ${value.length - from}`,
    );
  }
  for (let i = 0; i < fields.length; i++) {
    const [name, fieldShape] = fields[i] as readonly [string, ValueShape];
    out[name] = decodeValue(fieldShape, value[from + i], path, name);
  }
  if (rest !== undefined) {
    const [name, restShape] = rest;
    const items: unknown[] = [];
    const start = from + fields.length;
    if (start < value.length) {
      const restPath = `${path}.${name}`;
      for (let i = start; i < value.length; i++)
        items.push(decodeValue(restShape, value[i], restPath, i - start));
    }
    out[name] = items;
  }
  return out;
}

/** takesGroupKeys per KEYS shape (asked on every script call; the shapes are the generator's). */
const groupKeyTakers = new WeakMap<ParamShape, boolean>();

/**
 * Whether a script takes every group's keys (`...groups` in its KEYS): it checks the names it is
 * given and answers GROUPS with the actual ones when they differ (lib/queue/script-runner.ts).
 */
export function takesGroupKeys(script: { readonly keys: ParamShape }): boolean {
  let takes = groupKeyTakers.get(script.keys);
  if (takes === undefined) {
    const { lists = [], rest } = script.keys;
    takes = [...lists, ...(rest === undefined ? [] : [rest])].some(([name]) => name === 'groups');
    groupKeyTakers.set(script.keys, takes);
  }
  return takes;
}

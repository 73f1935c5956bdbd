/**
 * `cjson.encode` / `cjson.decode` for scripts, following lua-cjson as Redis ships it: a table is
 * an array when all its keys are positive integers (holes become null, very sparse arrays are
 * refused), an empty table encodes as `{}`, numbers print with `%.14g`, `/` is escaped, and JSON
 * null decodes to `cjson.null` (a NULL light userdata).
 */
import { type LuaStack, LuaType, luaInteger } from './lua-stack.ts';
import { formatG } from './number-format.ts';

const MAX_DEPTH = 1000;

/** Encodes the Lua value at `index`; returns the JSON text or throws an Error with cjson's text. */
export function encodeLuaValue(stack: LuaStack, L: number, index: number, depth = 0): string {
  const raw = stack.raw;
  const at = raw._lua_absindex(L, index);
  switch (raw._lua_type(L, at)) {
    case LuaType.string:
      return quote(stack.readString(L, at));
    case LuaType.number: {
      const value = raw._lua_tonumberx(L, at, 0);
      if (!Number.isFinite(value)) throw new Error('Cannot serialise number: must not be NaN or Inf');
      return formatG(value, 14);
    }
    case LuaType.boolean:
      return raw._lua_toboolean(L, at) ? 'true' : 'false';
    case LuaType.nil:
      return 'null';
    case LuaType.lightUserdata:
      if (raw._lua_touserdata(L, at) === 0) return 'null';
      throw new Error('Cannot serialise userdata: type not supported');
    case LuaType.table:
      if (depth >= MAX_DEPTH) throw new Error(`Cannot serialise, excessive nesting (${MAX_DEPTH + 1})`);
      return encodeTable(stack, L, at, depth + 1);
    default:
      throw new Error(`Cannot serialise ${typeName(raw._lua_type(L, at))}: type not supported`);
  }
}

function typeName(type: number): string {
  return (
    ['nil', 'boolean', 'userdata', 'number', 'string', 'table', 'function', 'userdata', 'thread'][type] ?? '?'
  );
}

function encodeTable(stack: LuaStack, L: number, at: number, depth: number): string {
  const raw = stack.raw;
  // First pass: is it an array (only positive integer keys), and how long?
  let count = 0;
  let max = 0;
  let isArray = true;
  raw._lua_pushnil(L);
  while (raw._lua_next(L, at) !== 0) {
    count++;
    if (isArray) {
      const key = raw._lua_type(L, -2) === LuaType.number ? raw._lua_tonumberx(L, -2, 0) : Number.NaN;
      if (Number.isInteger(key) && key >= 1) max = Math.max(max, key);
      else isArray = false;
    }
    raw._lua_settop(L, -2);
  }
  if (isArray && count > 0) {
    if (max > 10 && max > count * 2) throw new Error('Cannot serialise table: excessively sparse array');
    const parts: string[] = [];
    for (let i = 1; i <= max; i++) {
      raw._lua_rawgeti(L, at, luaInteger(i));
      parts.push(encodeLuaValue(stack, L, -1, depth));
      raw._lua_settop(L, -2);
    }
    return `[${parts.join(',')}]`;
  }
  const parts: string[] = [];
  raw._lua_pushnil(L);
  while (raw._lua_next(L, at) !== 0) {
    const keyType = raw._lua_type(L, -2);
    let key: string;
    if (keyType === LuaType.string) key = stack.readString(L, -2);
    else if (keyType === LuaType.number) key = formatG(raw._lua_tonumberx(L, -2, 0), 14);
    else throw new Error('Cannot serialise table: table key must be a number or string');
    parts.push(`${quote(key)}:${encodeLuaValue(stack, L, -1, depth)}`);
    raw._lua_settop(L, -2);
  }
  return `{${parts.join(',')}}`;
}

function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '/') out += '\\/';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Parses JSON and pushes the value; throws an Error when the text is not JSON. */
export function pushDecodedJson(stack: LuaStack, L: number, text: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('Expected value but found invalid token');
  }
  pushJsonValue(stack, L, value);
}

function pushJsonValue(stack: LuaStack, L: number, value: unknown): void {
  const raw = stack.raw;
  if (value === null) raw._lua_pushlightuserdata(L, 0);
  else if (typeof value === 'string') stack.pushString(L, value);
  else if (typeof value === 'number') stack.pushNumber(L, value);
  else if (typeof value === 'boolean') raw._lua_pushboolean(L, value ? 1 : 0);
  else if (Array.isArray(value)) {
    raw._lua_createtable(L, value.length, 0);
    value.forEach((item, i) => {
      pushJsonValue(stack, L, item);
      raw._lua_rawseti(L, -2, luaInteger(i + 1));
    });
  } else {
    const entries = Object.entries(value as Record<string, unknown>);
    raw._lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      stack.pushString(L, key);
      pushJsonValue(stack, L, item);
      raw._lua_rawset(L, -3);
    }
  }
}

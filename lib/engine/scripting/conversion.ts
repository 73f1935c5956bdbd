/**
 * Redis' conversion rules between replies and Lua values (RESP2), both ways.
 *
 * Reply → Lua (what `redis.call` returns): integer → number, bulk → string, nil bulk or nil array
 * → false, status → `{ok=...}`, error → `{err=...}`, array → table (nested the same way).
 *
 * Lua → reply (what a script returns): number → integer, truncated toward zero; string → bulk;
 * true → 1; false and nil → nil bulk; a table with a string `err` → error, with a string `ok` →
 * status, with a number `double` → bulk of its `%.17g` text; any other table → array of its
 * elements 1, 2, ... up to the first nil.
 */
import { RedisError, type Reply, StatusReply } from '../reply.ts';
import { type LuaStack, LuaType, luaInteger } from './lua-stack.ts';
import { formatG } from './number-format.ts';

/** Pushes `reply` onto the Lua stack as `redis.call` would hand it to the script. */
export function pushReply(stack: LuaStack, L: number, reply: Reply): void {
  const raw = stack.raw;
  if (typeof reply === 'string') stack.pushString(L, reply);
  else if (typeof reply === 'number') stack.pushNumber(L, reply);
  else if (reply === null) raw._lua_pushboolean(L, 0);
  else if (reply instanceof StatusReply) stack.pushSingleFieldTable(L, 'ok', reply.status);
  else if (reply instanceof RedisError) stack.pushSingleFieldTable(L, 'err', reply.message);
  else {
    raw._lua_createtable(L, reply.length, 0);
    for (let i = 0; i < reply.length; i++) {
      pushReply(stack, L, reply[i]!);
      raw._lua_rawseti(L, -2, luaInteger(i + 1));
    }
  }
}

/** Redis replaces line breaks in error and status texts, which RESP cannot carry. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}

/** Reads the Lua value at `index` as the reply a script returning it produces. */
export function readReply(stack: LuaStack, L: number, index: number): Reply {
  const raw = stack.raw;
  const at = raw._lua_absindex(L, index);
  switch (raw._lua_type(L, at)) {
    case LuaType.string:
      return stack.readString(L, at);
    case LuaType.number:
      return Math.trunc(raw._lua_tonumberx(L, at, 0));
    case LuaType.boolean:
      return raw._lua_toboolean(L, at) ? 1 : null;
    case LuaType.table:
      return readTable(stack, L, at);
    default:
      return null;
  }
}

function readTable(stack: LuaStack, L: number, at: number): Reply {
  const raw = stack.raw;
  const err = field(stack, L, at, 'err');
  if (typeof err === 'string') return new RedisError(oneLine(err));
  const ok = field(stack, L, at, 'ok');
  if (typeof ok === 'string') return new StatusReply(oneLine(ok));
  const double = field(stack, L, at, 'double');
  if (typeof double === 'number') return formatG(double, 17);
  const items: Reply[] = [];
  for (let i = 1; ; i++) {
    const type = raw._lua_rawgeti(L, at, luaInteger(i));
    if (type === LuaType.nil) {
      raw._lua_settop(L, -2);
      return items;
    }
    items.push(readReply(stack, L, -1));
    raw._lua_settop(L, -2);
  }
}

/** `rawget(t, name)` when it is a string or number; undefined otherwise. */
function field(stack: LuaStack, L: number, at: number, name: string): string | number | undefined {
  const raw = stack.raw;
  stack.pushString(L, name);
  const type = raw._lua_rawget(L, at);
  let value: string | number | undefined;
  if (type === LuaType.string) value = stack.readString(L, -1);
  else if (type === LuaType.number) value = raw._lua_tonumberx(L, -1, 0);
  raw._lua_settop(L, -2);
  return value;
}

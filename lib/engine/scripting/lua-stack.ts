/**
 * Byte-exact access to the Lua stack through wasmoon's raw C exports. wasmoon's convenience
 * wrappers go through C strings, which stop at the first NUL byte; Redis values may contain any
 * byte, so strings cross as (pointer, length) pairs here, UTF-8 encoded like the rest of the engine.
 */
import type { LuaWasm } from 'wasmoon';

/** The raw exports this module uses (`_lua_*` functions of the Emscripten module). */
export interface RawLua {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _lua_gettop(L: number): number;
  _lua_settop(L: number, index: number): void;
  _lua_type(L: number, index: number): number;
  _lua_tolstring(L: number, index: number, lengthPointer: number): number;
  _lua_pushlstring(L: number, pointer: number, length: number): number;
  _lua_pushinteger(L: number, value: bigint): void;
  _lua_pushnumber(L: number, value: number): void;
  _lua_pushboolean(L: number, value: number): void;
  _lua_pushnil(L: number): void;
  _lua_pushlightuserdata(L: number, pointer: number): void;
  _lua_tonumberx(L: number, index: number, isNumberPointer: number): number;
  _lua_isinteger(L: number, index: number): number;
  _lua_toboolean(L: number, index: number): number;
  _lua_touserdata(L: number, index: number): number;
  _lua_createtable(L: number, arraySize: number, hashSize: number): void;
  _lua_rawseti(L: number, index: number, n: bigint): void;
  _lua_rawgeti(L: number, index: number, n: bigint): number;
  _lua_rawget(L: number, index: number): number;
  _lua_rawset(L: number, index: number): void;
  _lua_next(L: number, index: number): number;
  _lua_absindex(L: number, index: number): number;
  _lua_pcallk(L: number, nargs: number, nresults: number, handler: number, ctx: number, k: number): number;
  _lua_pushcclosure(L: number, fn: number, upvalues: number): void;
  _luaL_ref(L: number, table: number): number;
  _luaL_unref(L: number, table: number, ref: number): void;
  _luaL_loadbufferx(L: number, pointer: number, length: number, name: number, mode: number): number;
  _luaL_newstate(): number;
  _luaL_openlibs(L: number): void;
  _lua_close(L: number): void;
  _lua_error(L: number): number;
  _lua_sethook(L: number, fn: number, mask: number, count: number): void;
  addFunction(fn: (...args: number[]) => number, signature: string): number;
}

export const LuaType = {
  nil: 0,
  boolean: 1,
  lightUserdata: 2,
  number: 3,
  string: 4,
  table: 5,
  function: 6,
} as const;

/** LUA_REGISTRYINDEX for wasmoon's build (-LUAI_MAXSTACK - 1000). */
export const REGISTRY_INDEX = -1_001_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Strings up to this many bytes are written by a byte loop when ASCII, and remembered when read. */
const SHORT_STRING = 64;
/** ASCII strings up to this many bytes are read by joining characters: cheaper than the decoder. */
const TINY_STRING = 12;
/** Slots of `readString`'s memo, one address each (by the address' bits above the alignment). */
const RECENT_SLOTS = 4096;

const smallIntegers: bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));

/**
 * `n` as the bigint a `lua_Integer` parameter takes: table indexes and registry references are
 * small, so the common ones come from a table instead of a new BigInt per call.
 */
export function luaInteger(n: number): bigint {
  return smallIntegers[n] ?? BigInt(n);
}

/**
 * The module with each `_name` function replaced by the instance's export `name` when it has one.
 * The heap views stay the module's own (Emscripten replaces them when the memory grows).
 */
function direct(wasm: LuaWasm, exports: Readonly<Record<string, unknown>>): RawLua {
  const module = wasm.module as unknown as Record<string, unknown>;
  const raw = Object.create(module) as Record<string, unknown>;
  for (const name of Object.keys(module)) {
    const own = name.startsWith('_') ? exports[name.slice(1)] : undefined;
    if (typeof own === 'function' && typeof module[name] === 'function') raw[name] = own;
  }
  return raw as unknown as RawLua;
}

/** String and number helpers bound to one Lua module (shared by every state in it). */
export class LuaStack {
  readonly raw: RawLua;
  private scratch = 0;
  private scratchSize = 0;
  private readonly lengthPointer: number;
  /** The address and ASCII string last read in each slot of the memo (see `readString`). */
  private readonly recentAt = new Int32Array(RECENT_SLOTS);
  private readonly recentText: string[] = new Array<string>(RECENT_SLOTS).fill('');

  /** `exports`: the instance's own functions, called instead of the module's wrapped ones. */
  constructor(wasm: LuaWasm, exports?: Readonly<Record<string, unknown>>) {
    this.raw = exports === undefined ? (wasm.module as unknown as RawLua) : direct(wasm, exports);
    this.lengthPointer = this.raw._malloc(4);
  }

  /** Writes `text` as UTF-8 into a reused buffer; returns its pointer and byte length. */
  encode(text: string): [pointer: number, length: number] {
    const needed = text.length * 3 + 1;
    if (needed > this.scratchSize) {
      if (this.scratch !== 0) this.raw._free(this.scratch);
      this.scratchSize = Math.max(needed, 4096);
      this.scratch = this.raw._malloc(this.scratchSize);
    }
    const target = this.raw.HEAPU8.subarray(this.scratch, this.scratch + this.scratchSize);
    const { written } = encoder.encodeInto(text, target);
    target[written] = 0;
    return [this.scratch, written];
  }

  pushString(L: number, text: string): void {
    const length = text.length;
    if (length <= SHORT_STRING) {
      if (this.scratchSize === 0) this.encode('');
      const heap = this.raw.HEAPU8;
      const at = this.scratch;
      let i = 0;
      for (; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code >= 0x80) break;
        heap[at + i] = code;
      }
      if (i === length) {
        this.raw._lua_pushlstring(L, at, length);
        return;
      }
    }
    const [pointer, written] = this.encode(text);
    this.raw._lua_pushlstring(L, pointer, written);
  }

  /**
   * The string (or number, converted by Lua) at `index`, decoded from UTF-8.
   *
   * Scripts hand the same short strings over and over (command names, key names, field names):
   * Lua interns them, so they sit at the same address from one call to the next. The last ASCII
   * string read at an address is kept (one per slot of a small table) and handed back when the bytes there still spell it,
   * which costs a compare instead of a new string, and gives the engine the same string object
   * each time (its hash already computed for the keyspace's and hashes' Map lookups). The compare
   * is of every byte, so a string freed and another allocated at its address is never mistaken.
   */
  readString(L: number, index: number): string {
    const pointer = this.raw._lua_tolstring(L, index, this.lengthPointer);
    if (pointer === 0) return '';
    const length = this.raw.HEAPU32[this.lengthPointer >>> 2]!;
    const heap = this.raw.HEAPU8;
    if (length > SHORT_STRING) return decoder.decode(heap.subarray(pointer, pointer + length));
    const slot = (pointer >>> 3) & (RECENT_SLOTS - 1);
    const known = this.recentText[slot]!;
    if (this.recentAt[slot] === pointer && known.length === length) {
      let i = 0;
      while (i < length && heap[pointer + i] === known.charCodeAt(i)) i++;
      if (i === length) return known;
    }
    let i = 0;
    while (i < length && heap[pointer + i]! < 0x80) i++;
    if (i < length) return decoder.decode(heap.subarray(pointer, pointer + length));
    let text: string;
    if (length <= TINY_STRING) {
      // A few characters are cheaper to join than to hand to the decoder.
      text = '';
      for (let j = 0; j < length; j++) text += String.fromCharCode(heap[pointer + j]!);
    } else {
      text = decoder.decode(heap.subarray(pointer, pointer + length));
    }
    this.recentAt[slot] = pointer;
    this.recentText[slot] = text;
    return text;
  }

  /** Raw bytes of the string at `index` (copied, since Lua may move or free its memory). */
  readBytes(L: number, index: number): Uint8Array {
    const pointer = this.raw._lua_tolstring(L, index, this.lengthPointer);
    const length = this.raw.HEAPU32[this.lengthPointer >>> 2]!;
    return this.raw.HEAPU8.slice(pointer, pointer + length);
  }

  /** Pushes a JS number as a Lua integer when it is one, so Lua 5.4 prints it without ".0". */
  pushNumber(L: number, value: number): void {
    if (Number.isSafeInteger(value))
      this.raw._lua_pushinteger(L, value >= 0 ? luaInteger(value) : BigInt(value));
    else this.raw._lua_pushnumber(L, value);
  }

  /** Pushes a new table `{[key] = text}`, the shape of Redis' status and error tables. */
  pushSingleFieldTable(L: number, key: string, text: string): void {
    this.raw._lua_createtable(L, 0, 1);
    this.pushString(L, key);
    this.pushString(L, text);
    this.raw._lua_rawset(L, -3);
  }
}

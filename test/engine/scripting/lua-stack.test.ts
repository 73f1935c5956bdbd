import { describe, expect, it } from 'vitest';
import type { LuaWasm } from 'wasmoon';
import { LuaStack } from '../../../lib/engine/scripting/lua-stack.ts';

/** A stand-in for the module: `_lua_tolstring` answers whatever bytes the test put at one address. */
function fakeModule() {
  const memory = new ArrayBuffer(1 << 16);
  const heap = new Uint8Array(memory);
  const words = new Uint32Array(memory);
  const at = 4096;
  let length = 0;
  let next = 64;
  const module = {
    HEAPU8: heap,
    HEAPU32: words,
    _malloc: (size: number) => {
      const pointer = next;
      next += (size + 7) & ~7;
      return pointer;
    },
    _lua_tolstring: (_L: number, _index: number, lengthPointer: number) => {
      words[lengthPointer >>> 2] = length;
      return at;
    },
  };
  const stack = new LuaStack({ module } as unknown as LuaWasm);
  /** Puts `bytes` at the address the next read answers. */
  const place = (bytes: readonly number[]) => {
    heap.set(bytes, at);
    length = bytes.length;
  };
  return { stack, place };
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

describe('LuaStack.readString', () => {
  it('answers the same string object for the same bytes at the same address', () => {
    const { stack, place } = fakeModule();
    place(ascii('q:{bench}:g:meta'));
    const first = stack.readString(1, 1);
    place(ascii('q:{bench}:g:meta'));
    expect(first).toBe('q:{bench}:g:meta');
    expect(stack.readString(1, 1)).toBe(first);
  });

  it('reads the new text when another string of the same length took the address', () => {
    const { stack, place } = fakeModule();
    place(ascii('n:1700000000000-1'));
    expect(stack.readString(1, 1)).toBe('n:1700000000000-1');
    place(ascii('n:1700000000000-2'));
    expect(stack.readString(1, 1)).toBe('n:1700000000000-2');
    place(ascii('ZADD'));
    expect(stack.readString(1, 1)).toBe('ZADD');
    place(ascii('ZREM'));
    expect(stack.readString(1, 1)).toBe('ZREM');
  });

  it('decodes UTF-8 and never answers a remembered string for bytes that are not ASCII', () => {
    const { stack, place } = fakeModule();
    place([0xe9, 0x78]);
    expect(stack.readString(1, 1)).toBe('\ufffdx');
    place([0xc3, 0xa9]);
    expect(stack.readString(1, 1)).toBe('é');
    place(ascii('éx'.normalize('NFC')).map((c) => c & 0xff));
    expect(stack.readString(1, 1)).toBe('\ufffdx');
  });

  it('reads long strings and empty ones', () => {
    const { stack, place } = fakeModule();
    const long = 'x'.repeat(200);
    place(ascii(long));
    expect(stack.readString(1, 1)).toBe(long);
    place([]);
    expect(stack.readString(1, 1)).toBe('');
  });
});

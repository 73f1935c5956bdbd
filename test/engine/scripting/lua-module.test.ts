import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../lib/clock.ts';
import { createEngine } from '../../../lib/engine/engine.ts';
import { luaExports, luaModule } from '../../../lib/engine/scripting/lua-module.ts';
import { LuaStack } from '../../../lib/engine/scripting/lua-stack.ts';

describe('the Lua module', () => {
  it("catches the instance's own exports on Node, so calls skip wasmoon's asserting wrappers", () => {
    expect(luaModule).not.toBeInstanceOf(Error);
    expect(typeof luaExports?.lua_pushlstring).toBe('function');
    expect(WebAssembly.instantiate.name).toBe('instantiate');
  });

  it('gives LuaStack the exports where it has them and the heap views of the module', () => {
    if (luaModule instanceof Error) throw luaModule;
    const stack = new LuaStack(luaModule, luaExports);
    expect(stack.raw._lua_gettop).toBe(luaExports?.lua_gettop);
    expect(stack.raw.HEAPU8).toBe((luaModule.module as unknown as { HEAPU8: Uint8Array }).HEAPU8);
    expect(new LuaStack(luaModule).raw._lua_gettop).not.toBe(luaExports?.lua_gettop);
  });
});

describe("a script's globals", () => {
  const engine = createEngine({ clock: createManualClock() });

  it('reads library globals and KEYS/ARGV', () => {
    expect(
      engine.callSync(['EVAL', 'return { type(redis.call), #KEYS, ARGV[1], tostring(2) }', '1', 'k', 'a']),
    ).toEqual(['function', 1, 'a', '2']);
  });

  it('refuses an unknown global read inside a function with the line of the read', () => {
    const reply = engine.callSync(['EVAL', 'local function f()\n  return nope\nend\nreturn f()', '0']);
    expect(reply).toBeInstanceOf(Error);
    expect((reply as Error).message).toMatch(
      /^ERR user_script:2: Script attempted to access nonexistent global variable 'nope' script: /,
    );
  });

  it('refuses assigning a global, and reading _G.nope the same way', () => {
    const assign = engine.callSync(['EVAL', 'x = 1', '0']);
    expect((assign as Error).message).toMatch(/Attempt to modify a readonly table/);
    const viaG = engine.callSync(['EVAL', 'return _G.nope', '0']);
    expect((viaG as Error).message).toMatch(/nonexistent global variable 'nope'/);
  });
});

/**
 * Loads the Lua VM (wasmoon: Lua 5.4 compiled to WebAssembly) once per process.
 *
 * Why wasmoon: it is the real reference Lua interpreter, not a reimplementation (fengari is a JS
 * port of 5.3 and is slower on string-heavy scripts), and its C API is exposed almost one to one,
 * so a JS function registered with it runs synchronously inside the VM — exactly what
 * `redis.call` needs to stay inside one atomic engine step.
 *
 * Why a top-level await: WebAssembly has to be instantiated asynchronously, but `createEngine`,
 * `callSync` and `exec` are synchronous. Awaiting the module here means anything that imports the
 * engine gets a VM that is ready before its first EVAL, and `createEngine` stays synchronous. A
 * failed load (say, a runtime that forbids compiling WebAssembly at run time) is kept as an error
 * value so the rest of the engine still works and only EVAL reports it.
 *
 * Why the instance's own exports: wasmoon ships an Emscripten build with assertions, whose
 * `Module._lua_*` functions each wrap the export in a closure that checks the runtime and calls
 * it through `apply(null, arguments)`. A script call makes 150 (produce) to 1,100 (consume of 10)
 * such calls, and that wrapper was 2-5% of a request's CPU in the API (--cpu-prof). The exports
 * are caught as wasmoon instantiates its module; where they cannot be (another runtime, another
 * build), the module's wrapped functions are used as before.
 */
import { LuaFactory, type LuaWasm } from 'wasmoon';

/** The exports of wasmoon's WebAssembly instance, when they could be caught at load. */
export type LuaExports = Readonly<Record<string, unknown>>;

/** An instance is wasmoon's Lua when it exports the C API (anything else passes through). */
function isLua(exports: WebAssembly.Exports): boolean {
  return typeof exports.lua_newstate === 'function' && typeof exports.lua_pcallk === 'function';
}

async function load(): Promise<{ wasm: LuaWasm; exports: LuaExports | undefined } | Error> {
  let exports: LuaExports | undefined;
  const instantiate = WebAssembly.instantiate;
  // Emscripten instantiates from bytes on Node and Deno; watch that one call, then put it back.
  const watching = async (...args: Parameters<typeof WebAssembly.instantiate>) => {
    const result = (await Reflect.apply(instantiate, WebAssembly, args)) as
      | WebAssembly.Instance
      | WebAssembly.WebAssemblyInstantiatedSource;
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    if (exports === undefined && isLua(instance.exports)) exports = instance.exports;
    return result;
  };
  try {
    WebAssembly.instantiate = watching as typeof WebAssembly.instantiate;
  } catch {
    // A runtime whose WebAssembly namespace is frozen: the wrapped functions it is.
  }
  try {
    return { wasm: await new LuaFactory().getLuaModule(), exports };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    if (WebAssembly.instantiate === (watching as unknown)) WebAssembly.instantiate = instantiate;
  }
}

const loaded = await load();

/** The process-wide Lua module, or why it could not be loaded. */
export const luaModule: LuaWasm | Error = loaded instanceof Error ? loaded : loaded.wasm;

/** Its instance's exports, called directly where present (see above). */
export const luaExports: LuaExports | undefined = loaded instanceof Error ? undefined : loaded.exports;

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
 */
import { LuaFactory, type LuaWasm } from 'wasmoon';

async function load(): Promise<LuaWasm | Error> {
  try {
    return await new LuaFactory().getLuaModule();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The process-wide Lua module, or why it could not be loaded. */
export const luaModule: LuaWasm | Error = await load();

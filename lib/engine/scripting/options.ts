/**
 * Per-engine scripting settings (the time limit). The engine's options belong to the dispatch
 * core, so they are attached here instead, keyed by the engine's keyspace, which every command
 * context carries.
 */
import type { Engine } from '../engine.ts';
import type { Keyspace } from '../keyspace.ts';
import { defaultScriptingOptions, type ScriptingOptions } from './script-vm.ts';

const settings = new WeakMap<Keyspace, ScriptingOptions>();

/**
 * Changes how scripts run on `engine`, e.g. a short time limit in tests.
 * @example configureScripting(engine, { timeLimitMs: 50 })
 */
export function configureScripting(engine: Pick<Engine, 'db'>, options: Partial<ScriptingOptions>): void {
  settings.set(engine.db, { ...scriptingOptionsFor(engine.db), ...options });
}

export function scriptingOptionsFor(db: Keyspace): ScriptingOptions {
  return settings.get(db) ?? defaultScriptingOptions;
}

/**
 * How an engine runs scripts (the time limit), given to `createEngine` and read by the scripting
 * commands through the command context.
 */

export interface ScriptingOptions {
  /** A script running longer than this is stopped with a BUSY error. Redis' default is 5 s. */
  readonly timeLimitMs: number;
  /** Monotonic milliseconds for the time limit (injectable so tests need not spin for real). */
  readonly elapsed: () => number;
}

export const defaultScriptingOptions: ScriptingOptions = {
  timeLimitMs: 5000,
  elapsed: () => performance.now(),
};

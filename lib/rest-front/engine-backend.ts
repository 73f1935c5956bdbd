/** The REST front's backend for the in-process engine: a direct hand-off, no copying. */
import type { Engine } from '../engine/engine.ts';
import type { Backend } from './backend.ts';

/**
 * Serves the REST front from an in-memory engine. Blocking reads (XREAD/XREADGROUP BLOCK) park
 * only their own request; every other request keeps being answered. A request whose client goes
 * away withdraws its parked read, so nothing is delivered to (and left pending for) a reader that
 * is gone.
 *
 * @example
 * const app = createRestFront({ backend: createEngineBackend(createEngine()), token: 'dev-token' });
 */
export function createEngineBackend(engine: Engine): Backend {
  // `async` so an engine bug thrown synchronously becomes a rejection (a 500 for that request);
  // the body still starts at once, which keeps pipelined calls in order.
  return {
    call: async (argv, options) => engine.call(argv, options?.signal ? { signal: options.signal } : {}),
    exec: async (commands) => engine.exec(commands),
  };
}

/**
 * The timer the client waits on: lib/clock.ts's sleep, built on setTimeout only (so it runs in
 * Workers, Deno, browsers and Node alike), which an AbortSignal ends early.
 */
export { sleepFor as sleep } from '../clock.ts';

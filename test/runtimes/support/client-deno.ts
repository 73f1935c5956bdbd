/**
 * The client's round trip under the real deno: reads ESQ_URL, ESQ_TOKEN and ESQ_QUEUE, runs it,
 * and prints the result as one JSON line.
 */
import { clientRoundTrip } from './client-round-trip.ts';

// Typed here rather than through Deno's own types, which the project's tsc does not load.
const { Deno } = globalThis as unknown as { Deno: { env: { get(name: string): string | undefined } } };
const env = (name: string) => {
  const value = Deno.env.get(name);
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

console.log(JSON.stringify(await clientRoundTrip(env('ESQ_URL'), env('ESQ_TOKEN'), env('ESQ_QUEUE'))));

/**
 * Answers that lease messages (a consume's) and must give them back when they never reach their
 * client. A route hands its give-back to the context (`c.set('giveBack', …)`); the app's outermost
 * middleware pins it on the final Response (hono replaces the Response object when middleware set
 * headers on it, so only the last one counts). The entry point, which alone sees the connection,
 * calls it when writing the answer failed: Node when the socket closed before the answer was
 * flushed (functions/support/node-body.ts), Workers and Deno when the runtime cancelled the
 * answer's body before reading it to the end (`giveBackIfCancelled`).
 */

/** Gives back what an answer leased, in one call; never rejects. */
export type GiveBack = () => Promise<void>;

const GIVE_BACK: unique symbol = Symbol('give back what this answer leased');
type Marked = Response & { [GIVE_BACK]?: GiveBack };

/** Marks `response` as one whose failed delivery must call `giveBack`. */
export function markUndeliverable(response: Response, giveBack: GiveBack): void {
  (response as Marked)[GIVE_BACK] = giveBack;
}

/** The give-back of a marked response, else undefined. */
export function giveBackOf(response: Response): GiveBack | undefined {
  return (response as Marked)[GIVE_BACK];
}

/**
 * For runtimes that stream a Response's body to the client (Workers, Deno): the same answer, its
 * body passed through a stream whose cancellation before its end calls the give-back (handed to
 * `schedule`, e.g. a Worker's `ctx.waitUntil`). A runtime reads a small body whole into its own
 * buffers at once, so only an answer larger than those buffers can be cancelled mid-way; a client
 * that vanishes after that leaves its messages to the visibility timeout.
 * @example return giveBackIfCancelled(await app.fetch(request, env, ctx), (p) => ctx.waitUntil(p));
 */
export function giveBackIfCancelled(
  response: Response,
  schedule: (work: Promise<void>) => void = () => undefined,
): Response {
  const giveBack = giveBackOf(response);
  const source = response.body;
  if (giveBack === undefined || source === null) return response;
  const reader = source.getReader();
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) {
        ended = true;
        controller.close();
      } else {
        controller.enqueue(next.value);
      }
    },
    cancel(reason) {
      reader.cancel(reason).catch(() => undefined);
      if (!ended) schedule(giveBack());
    },
  });
  return new Response(body, response);
}

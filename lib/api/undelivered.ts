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
const BODY_TEXT: unique symbol = Symbol('the text this answer was made from');
type Marked = Response & { [GIVE_BACK]?: GiveBack; [BODY_TEXT]?: string };

/**
 * Notes the text a JSON answer was made from (routes/shared.ts `json`), so that
 * `giveBackIfCancelled` slices it directly instead of reading the answer's own stream back.
 */
export function keepBodyText(response: Response, text: string): void {
  (response as Marked)[BODY_TEXT] = text;
}

/** Marks `response` as one whose failed delivery must call `giveBack`. */
export function markUndeliverable(response: Response, giveBack: GiveBack): void {
  (response as Marked)[GIVE_BACK] = giveBack;
}

/** The give-back of a marked response, else undefined. */
export function giveBackOf(response: Response): GiveBack | undefined {
  return (response as Marked)[GIVE_BACK];
}

/** The slice handed to the runtime at a time: it asks for the next only once it wrote this one. */
const CHUNK_BYTES = 64 * 1024;

/**
 * For runtimes that stream a Response's body to the client (Workers, Deno): the same answer, its
 * body passed on in 64 KiB slices through a stream whose cancellation before its end calls the
 * give-back (handed to `schedule`, e.g. a Worker's `ctx.waitUntil`). The runtime pulls the next
 * slice as the connection takes the last, so a client that goes away mid-answer cancels the
 * stream; the runtime's own buffers take the last slices, so a client that vanishes after them
 * leaves its messages to the visibility timeout.
 * @example return giveBackIfCancelled(await app.fetch(request, env, ctx), (p) => ctx.waitUntil(p));
 */
export function giveBackIfCancelled(
  response: Response,
  schedule: (work: Promise<void>) => void = () => undefined,
): Response {
  const giveBack = giveBackOf(response);
  if (giveBack === undefined) return response;
  const text = (response as Marked)[BODY_TEXT];
  if (text !== undefined && !response.bodyUsed) return slicesOf(response, text, giveBack, schedule);
  const source = response.body;
  if (source === null) return response;
  const reader = source.getReader();
  let pending: Uint8Array | undefined;
  let ended = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pending === undefined || pending.length === 0) {
          const next = await reader.read();
          if (next.done) {
            ended = true;
            controller.close();
            return;
          }
          pending = next.value;
        }
        controller.enqueue(pending.subarray(0, CHUNK_BYTES));
        pending = pending.subarray(CHUNK_BYTES);
      },
      cancel(reason) {
        reader.cancel(reason).catch(() => undefined);
        if (!ended) schedule(giveBack());
      },
    },
    // Nothing read ahead: each slice leaves only when the runtime asks for it.
    { highWaterMark: 0 },
  );
  return new Response(body, response);
}

const encoder = new TextEncoder();

/**
 * `giveBackIfCancelled` for an answer whose text is known: the same slices and the same
 * cancellation, from the text's bytes, with no reader on the answer's own stream and nothing
 * awaited per slice (that reading back was 4.5% of a consume's CPU in the Worker, issue 27).
 */
function slicesOf(
  response: Response,
  text: string,
  giveBack: GiveBack,
  schedule: (work: Promise<void>) => void,
): Response {
  let pending = encoder.encode(text);
  let ended = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pending.length === 0) {
          ended = true;
          controller.close();
          return;
        }
        controller.enqueue(pending.subarray(0, CHUNK_BYTES));
        pending = pending.subarray(CHUNK_BYTES);
      },
      cancel() {
        if (!ended) schedule(giveBack());
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, response);
}

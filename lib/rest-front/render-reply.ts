/**
 * Turns an engine `Reply` into the JSON the Upstash protocol carries in `result`: strings (base64
 * of their UTF-8 bytes when the client asked for it), integers as numbers, nil as null, arrays as
 * arrays. Status replies render as their text, so `+OK` and a bulk "OK" look the same, as on Upstash.
 */
import { RedisError, type Reply, StatusReply } from '../engine/reply.ts';
import { utf8ToBase64 } from './base64.ts';

export type JsonReply = string | number | null | JsonReply[];

export interface RenderOptions {
  /** `Upstash-Encoding: base64`: every string at every depth is encoded, "OK" included. */
  readonly base64: boolean;
}

export function renderReply(reply: Reply, options: RenderOptions): JsonReply {
  if (reply === null || typeof reply === 'number') return reply;
  if (typeof reply === 'string') return options.base64 ? utf8ToBase64(reply) : reply;
  if (reply instanceof StatusReply) return options.base64 ? utf8ToBase64(reply.status) : reply.status;
  // An error nested inside an array (a script's table, say) has no JSON shape of its own in the
  // protocol; its text is the most useful thing to hand back. Top-level errors never get here.
  if (reply instanceof RedisError) return options.base64 ? utf8ToBase64(reply.message) : reply.message;
  return reply.map((item) => renderReply(item, options));
}

/** One item of a `/pipeline` or `/multi-exec` reply. Error texts are never encoded. */
export function renderItem(reply: Reply, options: RenderOptions): { result: JsonReply } | { error: string } {
  if (reply instanceof RedisError) return { error: reply.message };
  return { result: renderReply(reply, options) };
}

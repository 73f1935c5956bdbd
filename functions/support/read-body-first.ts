/**
 * Node reads each request's body before the app sees the request, straight from the socket:
 * cheaper than the web Request the adapter would otherwise build around it (its stream cost more
 * than the rest of a small request), and it means the app never answers while the client is
 * still sending. An answer sent before the body was read would reach the client as a reset, and
 * the kept-alive connection would break under its next request. A body over the request limit is
 * read to its end and discarded (the app then answers 413); only past `maxDrainBytes` is the
 * connection closed, after the answer, which says `Connection: close`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import { PRE_READ_BODY, type PreReadBody } from '../../lib/api/request-body.ts';

export interface ReadBodyOptions {
  /** MAX_REQUEST_BYTES: past it the body is discarded and the app answers 413. */
  limitBytes: number;
  /** Past this many bytes the rest is not read: the connection closes after the 413. */
  maxDrainBytes: number;
}

/** What @hono/node-server passes as the app's bindings, plus the body. */
type NodeBindings = (HttpBindings | Http2Bindings) & { [PRE_READ_BODY]?: PreReadBody };

type Fetch = (request: Request, env: NodeBindings) => Response | Promise<Response>;

/**
 * Wraps the app's fetch for @hono/node-server (run it with `autoCleanupIncoming: false`).
 * @example serve({ fetch: readBodyFirst(app.fetch, { limitBytes, maxDrainBytes }), autoCleanupIncoming: false })
 */
export function readBodyFirst(fetch: Fetch, options: ReadBodyOptions): Fetch {
  return (request, env) => {
    const { incoming, outgoing } = env;
    // The server here is HTTP/1.1 (serve's default); HTTP/2 requests pass through as they are.
    if (incoming.httpVersionMajor === 2 || incoming.method === 'GET' || incoming.method === 'HEAD') {
      return fetch(request, env);
    }
    return readBody(incoming as IncomingMessage, outgoing as ServerResponse, options).then((body) =>
      fetch(request, { ...env, [PRE_READ_BODY]: body }),
    );
  };
}

function readBody(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  options: ReadBodyOptions,
): Promise<PreReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onEnd);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= options.limitBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      if (size > options.maxDrainBytes) {
        done();
        incoming.pause();
        outgoing.setHeader('connection', 'close');
        outgoing.once('finish', () => incoming.socket.destroySoon());
        resolve({ tooLarge: true });
      }
    };
    const onEnd = () => {
      done();
      if (size > options.limitBytes) return resolve({ tooLarge: true });
      let text = Buffer.concat(chunks, size).toString('utf8');
      // As the Fetch API's text() does: a UTF-8 byte-order mark is not part of the text.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      resolve({ text });
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    // A client that went away: whatever was read is answered to nobody.
    incoming.on('error', onEnd);
  });
}

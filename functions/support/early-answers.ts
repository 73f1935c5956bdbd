/**
 * Early answers on Node without broken connections. The API may answer before it has read a
 * request's body (a bad path parameter, 401, 404, 405, 413, 415): the client is then still
 * sending. Closing the socket at that point makes the client see a reset instead of the answer,
 * and cutting a kept-alive connection short breaks its next request. So once the answer is sent,
 * the rest of the body is read and discarded, and the connection stays usable; only a body past
 * `maxDrainBytes` (far over the request limit) ends the connection, after the answer and with
 * `Connection: close` announced when the answer starts before the body was read.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface EarlyAnswerOptions {
  /** Bytes discarded after an early answer before the connection is closed instead. */
  maxDrainBytes: number;
}

/**
 * Installs the handling on `server`; call it before the server serves. The hono adapter's own
 * cleanup (which closes a connection whose body is not read within 500 ms) must be off.
 * @example keepConnectionsThroughEarlyAnswers(server, { maxDrainBytes: 64 * 1024 * 1024 })
 */
export function keepConnectionsThroughEarlyAnswers(server: Server, options: EarlyAnswerOptions): void {
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const announced = Number(request.headers['content-length'] ?? Number.NaN);
    response.once('finish', () => discardRest(request, options.maxDrainBytes));
    // An answer that starts while the body is still arriving says whether the connection will
    // stay open: it will not when the body announced is more than can be discarded.
    const writeHead = response.writeHead.bind(response);
    response.writeHead = ((...args: Parameters<ServerResponse['writeHead']>) => {
      if (!request.readableEnded && announced > options.maxDrainBytes)
        response.setHeader('connection', 'close');
      return writeHead(...args);
    }) as ServerResponse['writeHead'];
  });
}

function discardRest(request: IncomingMessage, maxDrainBytes: number): void {
  if (request.readableEnded || request.destroyed) return;
  let bytes = 0;
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxDrainBytes) {
      request.off('data', onData);
      request.socket.destroySoon();
    }
  };
  // The answer is out: whatever still reads the body (the adapter's stream, which pauses the
  // request when nobody pulls from it) is done with it.
  request.removeAllListeners('data');
  request.removeAllListeners('readable');
  request.on('data', onData);
  request.resume();
}

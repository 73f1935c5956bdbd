/**
 * The AWS SDK's own SigV4 signer (@smithy/signature-v4), for tests that send raw requests (query
 * protocol forms, skewed dates, tampered bodies) the way an SDK signs them.
 */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { REGION } from './stack.ts';

function bytes(data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** The hash constructor the signer takes, on node:crypto (an HMAC when given a secret). */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

export interface RawRequest {
  method?: 'POST' | 'GET';
  url: string;
  headers: Record<string, string>;
  body?: string;
  key: { accessKeyId: string; secretAccessKey: string };
  /** Sign as at this time (default now). */
  signingDate?: Date;
}

/** Signs and sends; answers the response. */
export async function sendSigned(request: RawRequest): Promise<Response> {
  const url = new URL(request.url);
  const signer = new SignatureV4({
    credentials: request.key,
    region: REGION,
    service: 'sqs',
    sha256: NodeSha256,
  });
  const query = Object.fromEntries(url.searchParams);
  const signed = await signer.sign(
    {
      method: request.method ?? 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers: { host: url.host, ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    request.signingDate === undefined ? {} : { signingDate: request.signingDate },
  );
  const headers = { ...signed.headers } as Record<string, string>;
  delete headers.host;
  return fetch(url, {
    method: request.method ?? 'POST',
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
}

/** Signature Version 4 as the endpoint verifies it, against the reference vector and the SDK's own signer. */
import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { createSqsKeyring, parseSqsCredentials } from '../../lib/sqs/credentials.ts';
import { SqsError } from '../../lib/sqs/errors.ts';
import { SYNC_HASH_LIMIT } from '../../lib/sqs/hmac-sha256.ts';
import { canonicalPath, canonicalQuery, type SignedRequest, verifySigV4 } from '../../lib/sqs/sigv4.ts';

const secret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const keyring = createSqsKeyring(parseSqsCredentials(`AKIDEXAMPLE:${secret}:produce`));
const at = Date.UTC(2026, 0, 1);

/** The reference request (shared/reference/sqs.md §5), signed by the SDK's signer. */
function reference(
  overrides: Partial<SignedRequest> = {},
  headers: Record<string, string> = {},
): SignedRequest {
  return {
    method: 'POST',
    path: '/sqs/',
    query: '',
    host: 'localhost:3000',
    body: new TextEncoder().encode('{"QueueName":"orders"}'),
    headers: new Headers({
      host: 'localhost:3000',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'AmazonSQS.GetQueueUrl',
      'content-length': '22',
      'x-amz-date': '20260101T000000Z',
      'x-amz-content-sha256': 'e98ab4c3af7fcc35b0e38f262ec815bde664ed005fd4e14ad7b597abef6cf739',
      authorization:
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/sqs/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-target, Signature=ae80314f76a5745eabd45e550e801f0391c4f6bafc6d5218858ce1c334e70faa',
      ...headers,
    }),
    ...overrides,
  };
}

async function refusal(request: SignedRequest, now = at): Promise<string> {
  try {
    await verifySigV4(request, keyring, now);
  } catch (error) {
    if (error instanceof SqsError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('verifySigV4', () => {
  it('accepts the reference request and answers the key and its scopes', async () => {
    const caller = await verifySigV4(reference(), keyring, at);
    expect(caller.accessKeyId).toBe('AKIDEXAMPLE');
    expect([...caller.scopes]).toEqual(['produce']);
  });

  it('refuses a changed body, path, header or signature', async () => {
    const body = new TextEncoder().encode('{"QueueName":"orderz"}');
    expect(await refusal(reference({ body }))).toMatch(/^XAmzContentSHA256Mismatch/);
    expect(await refusal(reference({ body }, { 'x-amz-content-sha256': '' }))).toMatch(
      /^XAmzContentSHA256Mismatch/,
    );
    expect(await refusal(reference({ path: '/sqs' }))).toMatch(
      /^SignatureDoesNotMatch: The request signature/,
    );
    expect(await refusal(reference({}, { 'x-amz-target': 'AmazonSQS.DeleteQueue' }))).toMatch(
      /^SignatureDoesNotMatch: The request signature/,
    );
    expect(await refusal(reference({}, { host: 'localhost:3001' }))).toMatch(/^SignatureDoesNotMatch/);
    const forged = reference()
      .headers.get('authorization')!
      .replace(/Signature=ae/, 'Signature=af');
    expect(await refusal(reference({}, { authorization: forged }))).toMatch(/^SignatureDoesNotMatch/);
  });

  it('refuses a date more than 15 minutes off, either way, and accepts one within', async () => {
    expect(await refusal(reference(), at + 15 * 60_000)).toBe('accepted');
    expect(await refusal(reference(), at - 15 * 60_000)).toBe('accepted');
    expect(await refusal(reference(), at + 15 * 60_000 + 1000)).toMatch(
      /^SignatureDoesNotMatch: Signature expired: 20260101T000000Z is now earlier than 20260101T000001Z/,
    );
    expect(await refusal(reference(), at - 15 * 60_000 - 1000)).toMatch(
      /^SignatureDoesNotMatch: Signature not yet current/,
    );
  });

  it('refuses an unknown key, a missing or malformed header, another service, and an unsigned host', async () => {
    const auth = reference().headers.get('authorization')!;
    expect(await refusal(reference({}, { authorization: auth.replace('AKIDEXAMPLE', 'AKIDOTHER') }))).toMatch(
      /^InvalidClientTokenId/,
    );
    const bare = reference();
    bare.headers.delete('authorization');
    expect(await refusal(bare)).toMatch(/^MissingAuthenticationToken/);
    expect(await refusal(reference({}, { authorization: 'Bearer admin-token' }))).toMatch(
      /^IncompleteSignature/,
    );
    expect(
      await refusal(reference({}, { authorization: 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101' })),
    ).toMatch(/^IncompleteSignature/);
    expect(await refusal(reference({}, { authorization: auth.replace('/sqs/', '/sns/') }))).toMatch(
      /^SignatureDoesNotMatch: Credential should be scoped to correct service/,
    );
    expect(await refusal(reference({}, { authorization: auth.replace(';host;', ';') }))).toMatch(
      /'host' must be a signed header/,
    );
    expect(await refusal(reference({}, { 'x-amz-date': '20260101T000001Z' }))).toMatch(
      /^SignatureDoesNotMatch/,
    );
    expect(await refusal(reference({}, { 'x-amz-date': '20251231T235959Z' }))).toMatch(
      /Date in Credential scope/,
    );
  });

  it("accepts the SDK signer's signature over bodies hashed in plain code and by Web Crypto alike", async () => {
    const bytesOf = (data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
      typeof data === 'string'
        ? data
        : ArrayBuffer.isView(data)
          ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
          : new Uint8Array(data);
    /** The SDK's hash interface over node:crypto (what the AWS SDK uses on Node). */
    class NodeSha256 {
      private readonly hash;
      constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
        this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
      }
      update(data: string | ArrayBuffer | ArrayBufferView): void {
        this.hash.update(bytesOf(data));
      }
      async digest(): Promise<Uint8Array> {
        return new Uint8Array(this.hash.digest());
      }
    }
    const signer = new SignatureV4({
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: secret },
      region: 'us-east-1',
      service: 'sqs',
      sha256: NodeSha256,
    });
    const now = Date.now();
    for (const size of [0, 1500, SYNC_HASH_LIMIT, SYNC_HASH_LIMIT + 1, 100_000]) {
      // Exactly `size` bytes: either side of the limit up to which the body is hashed in plain code.
      const text = JSON.stringify({
        QueueUrl: 'http://localhost:3000/sqs/000000000000/orders',
        MessageBody: 'x'.repeat(size),
      }).slice(0, size);
      const body = new TextEncoder().encode(text);
      expect(body.length).toBe(size);
      const signed = await signer.sign(
        {
          method: 'POST',
          protocol: 'http:',
          hostname: 'localhost',
          port: 3000,
          path: '/sqs/',
          headers: {
            host: 'localhost:3000',
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'AmazonSQS.SendMessage',
          },
          body: text,
        },
        { signingDate: new Date(now) },
      );
      const request: SignedRequest = {
        method: 'POST',
        path: '/sqs/',
        query: '',
        host: 'localhost:3000',
        body,
        headers: new Headers(signed.headers as Record<string, string>),
      };
      expect(await refusal(request, now)).toBe('accepted');
      const changed = body.slice();
      changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 1;
      if (body.length > 0) {
        expect(await refusal({ ...request, body: changed }, now)).toMatch(
          // The SDK's signer sends the body's SHA-256, which the computed one must equal.
          /^XAmzContentSHA256Mismatch/,
        );
      }
    }
  });

  it('builds canonical paths and queries as the AWS signers do', () => {
    expect(canonicalPath('/')).toBe('/');
    expect(canonicalPath('/sqs/')).toBe('/sqs/');
    expect(canonicalPath('/sqs')).toBe('/sqs');
    expect(canonicalPath('/a//b/./c/../d/')).toBe('/a/b/d/');
    expect(canonicalPath('/a%20b')).toBe('/a%2520b');
    expect(canonicalQuery('b=2&a=1&a=0&c')).toBe('a=0&a=1&b=2&c=');
    expect(canonicalQuery("Action=SendMessage&MessageBody=it's%20(x)*")).toBe(
      'Action=SendMessage&MessageBody=it%27s%20%28x%29%2A',
    );
  });
});

describe('parseSqsCredentials', () => {
  it('reads keys with secrets that contain colons, and merges scopes of one key', () => {
    const parsed = parseSqsCredentials(' A1:s:e:c:ret:admin , A1:s:e:c:ret:consume,B2:x:produce ');
    expect(parsed).toEqual([
      { accessKeyId: 'A1', secretAccessKey: 's:e:c:ret', scope: 'admin' },
      { accessKeyId: 'A1', secretAccessKey: 's:e:c:ret', scope: 'consume' },
      { accessKeyId: 'B2', secretAccessKey: 'x', scope: 'produce' },
    ]);
    expect([...(createSqsKeyring(parsed).find('A1')?.scopes ?? [])]).toEqual(['admin', 'consume']);
  });

  it('refuses malformed entries without repeating them', () => {
    for (const spec of [
      'AKID:S3KRIT',
      'AKID:S3KRIT:root',
      'AK/ID:S3KRIT:admin',
      'AKID::admin',
      'A:S3KRIT:admin,A:y:produce',
    ]) {
      let message = '';
      try {
        parseSqsCredentials(spec);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^SQS_CREDENTIALS entry \d/);
      expect(message).not.toContain('S3KRIT');
    }
  });
});

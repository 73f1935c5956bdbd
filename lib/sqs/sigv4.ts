/**
 * Verifies AWS Signature Version 4 as SQS does (shared/reference/sqs.md §5): the Authorization
 * header's credential scope, signed headers and signature; the canonical request rebuilt from the
 * raw path, the query and the body's bytes; a clock skew of at most 15 minutes either way; the
 * signatures compared in constant time. The hashing and the HMACs run synchronously in plain code
 * (lib/sqs/hmac-sha256.ts); only a body larger than SYNC_HASH_LIMIT goes to Web Crypto. Presigned
 * URLs (the signature in the query string) are not accepted: SDKs sign SQS calls in the header.
 */
import type { Scope } from '../api/auth.ts';
import type { SqsKeyring } from './credentials.ts';
import { SqsError, SqsErrorCode } from './errors.ts';
import { hmacSha256, hmacSha256Hex, SYNC_HASH_LIMIT, sha256HexSync } from './hmac-sha256.ts';
import { utf8 } from './text.ts';

export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** What the verifier reads of a request. */
export interface SignedRequest {
  method: string;
  /** The path exactly as the client sent it (percent-encoding kept). */
  path: string;
  /** The query string without `?`, as sent. */
  query: string;
  headers: Headers;
  /** The request URL's host (with port), for a `host` header the runtime does not show. */
  host: string;
  body: Uint8Array;
}

export interface Caller {
  accessKeyId: string;
  scopes: ReadonlySet<Scope>;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const datePattern = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const hexDigits = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function toHex(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let out = '';
  for (const byte of bytes) out += hexDigits[byte];
  return out;
}

/**
 * The SHA-256 of `data` as hex: computed here for small inputs (no thread-pool hop), by Web Crypto
 * for large ones (off the event loop).
 */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? utf8(data) : data;
  if (bytes.length <= SYNC_HASH_LIMIT) return sha256HexSync(bytes);
  return toHex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
}

/** RFC 3986 escaping as the AWS signers do it (encodeURIComponent plus !'()*). */
export function escapeUri(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The canonical URI: empty, `.` and `..` segments resolved, then escaped again, `/` kept. */
export function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${
    segments.length > 0 && path.endsWith('/') ? '/' : ''
  }`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The canonical query: every pair escaped, sorted by name then value. */
export function canonicalQuery(query: string): string {
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    pairs.push([escapeUri(name), escapeUri(value)]);
  }
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function incomplete(message: string): SqsError {
  return new SqsError(SqsErrorCode.incompleteSignature, message);
}

export interface Authorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  terminator: string;
  signedHeaders: string[];
  signature: string;
}

function parseAuthorization(header: string): Authorization {
  if (!header.startsWith(`${ALGORITHM} `)) {
    throw incomplete(`Authorization header must use the ${ALGORITHM} algorithm (Signature Version 4).`);
  }
  const fields = new Map<string, string>();
  for (const part of header.slice(ALGORITHM.length + 1).split(',')) {
    const item = part.trim();
    const eq = item.indexOf('=');
    if (eq > 0) fields.set(item.slice(0, eq), item.slice(eq + 1));
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  for (const [name, value] of [
    ['Credential', credential],
    ['SignedHeaders', signedHeaders],
    ['Signature', signature],
  ] as const) {
    if (value === undefined || value === '') {
      throw incomplete(`Authorization header requires '${name}' parameter. Authorization=${ALGORITHM} …`);
    }
  }
  const scope = (credential as string).split('/');
  if (scope.length !== 5) {
    throw incomplete(
      "Credential should be scoped to a valid region, service and date: 'AccessKeyId/YYYYMMDD/region/sqs/aws4_request'.",
    );
  }
  const [accessKeyId, date, region, service, terminator] = scope as [string, string, string, string, string];
  if (!/^[0-9a-f]{64}$/.test(signature as string)) {
    throw incomplete('The Signature must be 64 lowercase hexadecimal digits.');
  }
  return {
    accessKeyId,
    date,
    region,
    service,
    terminator,
    signedHeaders: (signedHeaders as string).split(';'),
    signature: signature as string,
  };
}

function parseAmzDate(text: string): number | undefined {
  const m = datePattern.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const ms = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
  return Number.isNaN(ms) ? undefined : ms;
}

function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Equal-length hex strings compared in time that does not depend on where they differ. */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Signing keys by secret, date and region: four HMACs saved on every later request of the day. */
const signingKeys = new Map<string, Uint8Array>();

function signingKey(secret: string, date: string, region: string): Uint8Array {
  const id = `${secret}\n${date}\n${region}`;
  let key = signingKeys.get(id);
  if (key === undefined) {
    if (signingKeys.size >= 256) signingKeys.clear();
    const kDate = hmacSha256(utf8(`AWS4${secret}`), date);
    const kRegion = hmacSha256(kDate, region);
    const kService = hmacSha256(kRegion, 'sqs');
    key = hmacSha256(kService, 'aws4_request');
    signingKeys.set(id, key);
  }
  return key;
}

/** A request whose credentials passed every check that needs no body (checkCredentials). */
export interface Credentialed {
  auth: Authorization;
  xAmzDate: string;
  secretAccessKey: string;
  caller: Caller;
}

/**
 * Everything of SigV4 that needs no body byte: the Authorization header's form, a known key, the
 * date and its skew, the scope and the signed headers. The endpoint runs it before it reads the
 * body, so an anonymous or unknown caller never makes the service hold one. Throws AWS's errors:
 * MissingAuthenticationToken, IncompleteSignature, InvalidClientTokenId (unknown key),
 * SignatureDoesNotMatch (a date off by more than 15 minutes, a wrong scope).
 * @example const credentialed = checkCredentials(request.headers, url.search.slice(1), keyring, Date.now());
 */
export function checkCredentials(
  headers: Headers,
  query: string,
  keyring: SqsKeyring,
  now: number,
): Credentialed {
  const header = headers.get('authorization');
  if (header === null || header === '') {
    throw new SqsError(
      SqsErrorCode.missingAuthenticationToken,
      /(^|&)X-Amz-(Algorithm|Signature)=/i.test(query)
        ? 'Presigned URLs are not accepted; sign the request in the Authorization header.'
        : 'Request is missing Authentication Token',
    );
  }
  const auth = parseAuthorization(header);
  const key = keyring.find(auth.accessKeyId);
  if (key === undefined) {
    throw new SqsError(
      SqsErrorCode.invalidClientTokenId,
      keyring.size === 0
        ? 'The security token included in the request is invalid (this service has no SQS_CREDENTIALS configured).'
        : 'The security token included in the request is invalid.',
    );
  }
  const xAmzDate = headers.get('x-amz-date');
  if (xAmzDate === null) {
    throw incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
  }
  const signedAt = parseAmzDate(xAmzDate);
  if (signedAt === undefined)
    throw incomplete(`X-Amz-Date must be in the form YYYYMMDD'T'HHMMSS'Z': ${xAmzDate}`);
  if (auth.service !== 'sqs' || auth.terminator !== 'aws4_request') {
    throw new SqsError(
      SqsErrorCode.signatureDoesNotMatch,
      `Credential should be scoped to correct service: 'sqs' (and end in aws4_request).`,
    );
  }
  if (auth.date !== xAmzDate.slice(0, 8)) {
    throw new SqsError(
      SqsErrorCode.signatureDoesNotMatch,
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${auth.date}' != '${xAmzDate.slice(0, 8)}'.`,
    );
  }
  for (const required of ['host', 'x-amz-date']) {
    if (!auth.signedHeaders.includes(required)) {
      throw new SqsError(SqsErrorCode.signatureDoesNotMatch, `'${required}' must be a signed header.`);
    }
  }
  if (signedAt < now - MAX_CLOCK_SKEW_MS) {
    throw new SqsError(
      SqsErrorCode.signatureDoesNotMatch,
      `Signature expired: ${xAmzDate} is now earlier than ${amzDate(now - MAX_CLOCK_SKEW_MS)} (${amzDate(now)} - 15 min.)`,
    );
  }
  if (signedAt > now + MAX_CLOCK_SKEW_MS) {
    throw new SqsError(
      SqsErrorCode.signatureDoesNotMatch,
      `Signature not yet current: ${xAmzDate} is still later than ${amzDate(now + MAX_CLOCK_SKEW_MS)} (${amzDate(now)} + 15 min.)`,
    );
  }
  return {
    auth,
    xAmzDate,
    secretAccessKey: key.secretAccessKey,
    caller: { accessKeyId: auth.accessKeyId, scopes: key.scopes },
  };
}

/**
 * Checks the request's signature over its body, once checkCredentials passed; answers who signed
 * it. Throws SignatureDoesNotMatch (a wrong signature) or XAmzContentSHA256Mismatch.
 */
export async function verifySignature(request: SignedRequest, credentialed: Credentialed): Promise<Caller> {
  const { auth, xAmzDate } = credentialed;
  const payloadHash =
    request.body.length <= SYNC_HASH_LIMIT ? sha256HexSync(request.body) : await sha256Hex(request.body);
  const claimed = request.headers.get('x-amz-content-sha256');
  if (claimed !== null && claimed !== payloadHash) {
    throw new SqsError(
      SqsErrorCode.contentSha256Mismatch,
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  }
  const headerLines = auth.signedHeaders.map((name) => {
    const value = name === 'host' ? (request.headers.get('host') ?? request.host) : request.headers.get(name);
    return `${name}:${(value ?? '').trim().replace(/\s+/g, ' ')}\n`;
  });
  const canonical = [
    request.method,
    canonicalPath(request.path),
    canonicalQuery(request.query),
    headerLines.join(''),
    auth.signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${auth.date}/${auth.region}/sqs/aws4_request`;
  const stringToSign = `${ALGORITHM}\n${xAmzDate}\n${scope}\n${sha256HexSync(canonical)}`;
  const expected = hmacSha256Hex(
    signingKey(credentialed.secretAccessKey, auth.date, auth.region),
    stringToSign,
  );
  if (!sameHex(expected, auth.signature)) {
    throw new SqsError(
      SqsErrorCode.signatureDoesNotMatch,
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return credentialed.caller;
}

/**
 * Both checks on a request whose body is at hand (tests, and callers that read the body first).
 * @example const caller = await verifySigV4(request, keyring, Date.now());
 */
export async function verifySigV4(request: SignedRequest, keyring: SqsKeyring, now: number): Promise<Caller> {
  return verifySignature(request, checkCredentials(request.headers, request.query, keyring, now));
}

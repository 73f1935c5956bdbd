/**
 * The SQS endpoint's keys: `SQS_CREDENTIALS="accessKeyId:secretAccessKey:scope,…"`, each key with
 * the API's scopes (admin, produce, consume; lib/api/auth.ts). A key listed under several scopes
 * holds all of them. Errors name an entry by position and never repeat any part of it: an entry
 * may be a pasted secret.
 */
import { type Scope, Scope as Scopes } from '../api/auth.ts';

export interface SqsCredential {
  accessKeyId: string;
  secretAccessKey: string;
  scope: Scope;
}

export interface SqsKey {
  readonly secretAccessKey: string;
  readonly scopes: ReadonlySet<Scope>;
}

/** The configured keys by access key id. */
export interface SqsKeyring {
  readonly size: number;
  find(accessKeyId: string): SqsKey | undefined;
}

const scopes = new Set<string>(Object.values(Scopes));
/** What a SigV4 Credential field can carry as the key id (it is split on `/`). */
const keyIdPattern = /^[A-Za-z0-9._-]{1,128}$/;
/** Visible ASCII: what an SDK's credentials file and environment variables carry. */
const secretPattern = /^[\x21-\x7E]{1,256}$/;

/**
 * Parses the spec. Throws on a malformed entry, an unknown scope, or one access key id given two
 * different secrets, so a typo stops the service at start instead of locking a client out.
 * @example parseSqsCredentials('AKIDEXAMPLE:wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY:admin')
 */
export function parseSqsCredentials(spec: string): SqsCredential[] {
  const out: SqsCredential[] = [];
  let position = 0;
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    position++;
    const where = `SQS_CREDENTIALS entry ${position}`;
    const first = item.indexOf(':');
    const last = item.lastIndexOf(':');
    if (first < 0 || last === first) {
      throw new Error(`${where} must be accessKeyId:secretAccessKey:scope (scope admin, produce or consume)`);
    }
    const accessKeyId = item.slice(0, first);
    const secretAccessKey = item.slice(first + 1, last);
    const scope = item.slice(last + 1);
    if (!scopes.has(scope))
      throw new Error(`${where}: the part after the last ":" must be admin, produce or consume`);
    if (!keyIdPattern.test(accessKeyId)) {
      throw new Error(`${where}: the access key id must be 1-128 characters of A-Z a-z 0-9 . _ -`);
    }
    if (!secretPattern.test(secretAccessKey)) {
      throw new Error(`${where}: the secret access key must be 1-256 visible ASCII characters`);
    }
    const clash = out.find((c) => c.accessKeyId === accessKeyId && c.secretAccessKey !== secretAccessKey);
    if (clash !== undefined)
      throw new Error(`${where} gives an access key id listed before a different secret`);
    out.push({ accessKeyId, secretAccessKey, scope: scope as Scope });
  }
  return out;
}

export function createSqsKeyring(credentials: readonly SqsCredential[]): SqsKeyring {
  const byId = new Map<string, { secretAccessKey: string; scopes: Set<Scope> }>();
  for (const { accessKeyId, secretAccessKey, scope } of credentials) {
    const key = byId.get(accessKeyId) ?? { secretAccessKey, scopes: new Set<Scope>() };
    key.scopes.add(scope);
    byId.set(accessKeyId, key);
  }
  return { size: byId.size, find: (accessKeyId) => byId.get(accessKeyId) };
}

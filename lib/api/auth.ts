/**
 * Bearer-token auth: parsing `API_TOKENS` (`scope:token,scope:token`), constant-time lookup of a
 * presented token, and the scope rule of every route. Entry points read the environment and pass
 * the spec string in; nothing here knows where it came from.
 */
import { sha256Words } from './sha256.ts';

export const Scope = {
  admin: 'admin',
  produce: 'produce',
  consume: 'consume',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

const scopes = new Set<string>(Object.values(Scope));

/**
 * The configured tokens, kept as SHA-256 digests so lookups compare fixed-length values (and a
 * token once presented, so that it is not hashed again).
 */
export interface TokenSet {
  readonly size: number;
  /**
   * The scopes the presented token grants; an empty set when it is unknown. Synchronous: the
   * digest is computed in plain code (lib/api/sha256.ts), not through the async webcrypto API.
   */
  scopesOf(token: string): ReadonlySet<Scope>;
}

/** Equal-length comparison of two digests whose time does not depend on where they differ. */
function timingSafeEqual(a: Uint32Array, b: Uint32Array): boolean {
  let diff = 0;
  for (let i = 0; i < 8; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/** What a bearer header can carry as one token: visible ASCII, no spaces (RFC 6750's b64token is stricter). */
const tokenPattern = /^[\x21-\x7E]+$/;

/**
 * Parses `scope:token` pairs separated by commas. The same token may appear under several
 * scopes; it then holds all of them. Throws on an unknown scope, an empty token or a token no
 * `Authorization: Bearer` header could carry, so a typo stops the service at start instead of
 * silently locking a client out. The message names the entry by position and never repeats any
 * part of it: an entry without a scope may be a bare secret.
 * @example parseTokenSpec('admin:s3cret,produce:p-123')
 */
export function parseTokenSpec(spec: string): { scope: Scope; token: string }[] {
  const pairs: { scope: Scope; token: string }[] = [];
  let position = 0;
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    position++;
    const where = `API_TOKENS entry ${position}`;
    const colon = item.indexOf(':');
    if (colon < 0)
      throw new Error(`${where} has no scope: write scope:token (scope admin, produce or consume)`);
    const scope = item.slice(0, colon).trim();
    const token = item.slice(colon + 1).trim();
    if (!scopes.has(scope)) {
      throw new Error(`${where}: the part before ":" is not a scope (use admin, produce or consume)`);
    }
    if (token === '') throw new Error(`${where} (${scope}) has an empty token`);
    if (!tokenPattern.test(token)) {
      throw new Error(
        `${where} (${scope}) has a token with a space or a character outside visible ASCII, which no Bearer header can carry`,
      );
    }
    pairs.push({ scope: scope as Scope, token });
  }
  return pairs;
}

/** Builds the lookup from parsed pairs (or a spec string). */
export async function createTokenSet(
  input: string | readonly { scope: Scope; token: string }[],
): Promise<TokenSet> {
  return createTokenSetSync(input);
}

function createTokenSetSync(input: string | readonly { scope: Scope; token: string }[]): TokenSet {
  const pairs = typeof input === 'string' ? parseTokenSpec(input) : input;
  const byToken = new Map<string, Set<Scope>>();
  for (const { scope, token } of pairs) {
    const held = byToken.get(token) ?? new Set<Scope>();
    held.add(scope);
    byToken.set(token, held);
  }
  const entries = [...byToken].map(([token, held]) => ({
    hash: sha256Words(token, new Uint32Array(8)),
    scopes: held,
  }));
  // The presented token's digest, computed into the same words each time (lookups are synchronous).
  const presented = new Uint32Array(8);
  const none: ReadonlySet<Scope> = new Set();
  /**
   * Tokens presented before whose digest matched, with their scopes: a client sends the same
   * token on every request, and its digest (sha256Words, ~1% of a Worker's consume) need not be
   * computed again. Only configured tokens get in, so it holds at most one entry per token; an
   * unknown token is hashed and compared every time, as before. The map's lookup hashes the
   * presented string and compares contents only on an equal hash, so its time says nothing
   * about a configured token's characters.
   */
  const known = new Map<string, ReadonlySet<Scope>>();
  return {
    size: entries.length,
    scopesOf(token) {
      const cached = known.get(token);
      if (cached !== undefined) return cached;
      const hash = sha256Words(token, presented);
      let found: ReadonlySet<Scope> = none;
      // Visit every entry, no early exit: the time taken says nothing about which one matched.
      for (const entry of entries) {
        if (timingSafeEqual(hash, entry.hash)) found = entry.scopes;
      }
      if (found !== none && known.size < entries.length) known.set(token, found);
      return found;
    },
  };
}

/** True when the granted scopes allow a route that needs `required` (admin allows everything). */
export function allows(granted: ReadonlySet<Scope>, required: Scope): boolean {
  return granted.has(Scope.admin) || granted.has(required);
}

/** A random token for development runs; 24 bytes of base64url. */
export function generateDevToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return `dev-${btoa(text).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}`;
}

/** The shortest token production mode accepts: a guessable token is an open queue. */
export const MIN_PRODUCTION_TOKEN_LENGTH = 16;

/**
 * What the entry points call with `API_TOKENS`: in production an empty spec, or a token shorter
 * than 16 characters, is refused (the service must not run open or nearly so); in development
 * with no spec an admin token is made up (or `devToken`, one the entry point kept from an earlier
 * run) and returned so the entry point can print it.
 */
export async function resolveTokens(
  spec: string | undefined,
  mode: 'production' | 'development',
  devToken?: string,
): Promise<{ tokens: TokenSet; devToken?: string }> {
  const pairs = parseTokenSpec(spec ?? '');
  if (mode === 'production') {
    pairs.forEach(({ scope, token }, index) => {
      if ([...token].length < MIN_PRODUCTION_TOKEN_LENGTH) {
        throw new Error(
          `API_TOKENS entry ${index + 1} (${scope}) has a token shorter than ${MIN_PRODUCTION_TOKEN_LENGTH} characters, which production mode refuses (make one with: openssl rand -base64 24)`,
        );
      }
    });
  }
  if (pairs.length > 0) return { tokens: await createTokenSet(pairs) };
  if (mode === 'production') {
    throw new Error('API_TOKENS is empty: refusing to start an open queue in production mode');
  }
  const token = devToken ?? generateDevToken();
  return { tokens: await createTokenSet([{ scope: Scope.admin, token }]), devToken: token };
}

/**
 * Generic keyspace commands: DEL, UNLINK, EXISTS, TYPE, the EXPIRE family, PERSIST, TTL, PTTL,
 * KEYS and SCAN. Expiry is stored as an absolute ms time on the key; the keyspace drops a key
 * lazily once the time a command sees reaches it.
 */
import type { CommandContext, CommandHandler, CommandSpec } from '../command.ts';
import { int64Arg, integerArg, isWord } from '../data/arguments.ts';
import { globMatch } from '../data/glob.ts';
import { INT64_MAX, INT64_MIN } from '../data/numbers.ts';
import { Errors, fail, type Reply, StatusReply } from '../reply.ts';

const del: CommandHandler = (ctx, argv) => {
  let removed = 0;
  for (const key of argv.slice(1)) if (ctx.db.delete(key)) removed++;
  return removed;
};

interface ExpireFlags {
  nx: boolean;
  xx: boolean;
  gt: boolean;
  lt: boolean;
}

function parseExpireFlags(argv: readonly string[]): ExpireFlags {
  const flags = { nx: false, xx: false, gt: false, lt: false };
  for (const option of argv.slice(3)) {
    const word = option.toLowerCase();
    if (word === 'nx' || word === 'xx' || word === 'gt' || word === 'lt') flags[word] = true;
    else fail(`ERR Unsupported option ${option}`);
  }
  if (flags.nx && (flags.xx || flags.gt || flags.lt)) {
    fail('ERR NX and XX, GT or LT options at the same time are not compatible');
  }
  if (flags.gt && flags.lt) fail('ERR GT and LT options at the same time are not compatible');
  return flags;
}

/** EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: `relative` adds the command's time, `seconds` scales by 1000. */
function expireCommand(name: string, seconds: boolean, relative: boolean): CommandSpec {
  return {
    name,
    arity: -3,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      const flags = parseExpireFlags(argv);
      let when = int64Arg(argv[2]);
      const invalid = `ERR invalid expire time in '${name}' command`;
      if (seconds) {
        if (when > INT64_MAX / 1000n || when < INT64_MIN / 1000n) fail(invalid);
        when *= 1000n;
      }
      const base = relative ? BigInt(ctx.now) : 0n;
      if (when > INT64_MAX - base) fail(invalid);
      when += base;
      const entry = ctx.db.entry(key);
      if (entry === undefined) return 0;
      const current = entry.expiresAt;
      if (flags.nx && current !== undefined) return 0;
      if (flags.xx && current === undefined) return 0;
      // A key without expiry counts as an infinite TTL: GT never beats it, LT always does.
      if (flags.gt && (current === undefined || when <= BigInt(current))) return 0;
      if (flags.lt && current !== undefined && when >= BigInt(current)) return 0;
      if (when <= BigInt(ctx.now)) {
        ctx.db.delete(key);
        return 1;
      }
      ctx.db.setExpiry(key, Number(when));
      ctx.db.touch(key);
      return 1;
    },
  };
}

function ttlCommand(name: string, milliseconds: boolean): CommandSpec {
  return {
    name,
    arity: 2,
    write: false,
    handler: (ctx, argv) => {
      const entry = ctx.db.entry(argv[1] ?? '');
      if (entry === undefined) return -2;
      if (entry.expiresAt === undefined) return -1;
      const ttl = Math.max(0, entry.expiresAt - ctx.now);
      return milliseconds ? ttl : Math.floor((ttl + 500) / 1000);
    },
  };
}

/** FNV-1a: fixes each key's place in SCAN's order, so a cursor survives inserts and deletes. */
function scanHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const CURSOR = /^[+-]?[0-9]*$/;
const UINT64_LIMIT = 18446744073709551616n;

/** Like strtoul as Redis checks it: `-n` wraps around, overflow and stray characters are errors. */
function parseCursor(text: string): bigint {
  if (!CURSOR.test(text)) fail('ERR invalid cursor');
  const digits = text.replace(/^[+-]/, '');
  const magnitude = digits === '' ? 0n : BigInt(digits);
  if (magnitude >= UINT64_LIMIT) fail('ERR invalid cursor');
  return text.startsWith('-') && magnitude > 0n ? UINT64_LIMIT - magnitude : magnitude;
}

/**
 * SCAN walks keys in order of a fixed 32-bit hash; the cursor is the next hash to visit. Every
 * key present for the whole scan is returned once (keys sharing a hash come back together).
 */
function scan(ctx: CommandContext, argv: readonly string[]): Reply {
  const cursor = parseCursor(argv[1] ?? '');
  let count = 10;
  let pattern: string | undefined;
  let type: string | undefined;
  for (let i = 2; i < argv.length; i += 2) {
    const option = argv[i];
    const value = argv[i + 1];
    if (value === undefined) fail(Errors.syntax);
    if (isWord(option, 'count')) {
      count = integerArg(value);
      if (count < 1) fail(Errors.syntax);
    } else if (isWord(option, 'match')) {
      pattern = value === '*' ? undefined : value;
    } else if (isWord(option, 'type')) {
      type = value;
    } else {
      fail(Errors.syntax);
    }
  }
  if (cursor > 0xffffffffn) return ['0', []];
  const start = Number(cursor);
  const candidates: { key: string; hash: number }[] = [];
  for (const key of ctx.db.keys()) {
    const hash = scanHash(key);
    if (hash >= start) candidates.push({ key, hash });
  }
  candidates.sort((a, b) => a.hash - b.hash);
  let taken = Math.min(count, candidates.length);
  const lastHash = candidates[taken - 1]?.hash;
  while (taken < candidates.length && candidates[taken]?.hash === lastHash) taken++;
  const batch = candidates.slice(0, taken);
  const next = taken < candidates.length && lastHash !== undefined ? String(lastHash + 1) : '0';
  const keys: Reply[] = [];
  for (const { key } of batch) {
    if (pattern !== undefined && !globMatch(pattern, key)) continue;
    if (type !== undefined && ctx.db.entry(key)?.type !== type.toLowerCase()) continue;
    keys.push(key);
  }
  return [next, keys];
}

export const keysCommands: readonly CommandSpec[] = [
  { name: 'del', arity: -2, write: true, handler: del },
  { name: 'unlink', arity: -2, write: true, handler: del },
  {
    name: 'exists',
    arity: -2,
    write: false,
    handler: (ctx, argv) => argv.slice(1).filter((key) => ctx.db.entry(key) !== undefined).length,
  },
  {
    name: 'type',
    arity: 2,
    write: false,
    handler: (ctx, argv) => new StatusReply(ctx.db.entry(argv[1] ?? '')?.type ?? 'none'),
  },
  expireCommand('expire', true, true),
  expireCommand('pexpire', false, true),
  expireCommand('expireat', true, false),
  expireCommand('pexpireat', false, false),
  {
    name: 'persist',
    arity: 2,
    write: true,
    handler: (ctx, argv) => {
      const key = argv[1] ?? '';
      if (ctx.db.entry(key)?.expiresAt === undefined) return 0;
      ctx.db.setExpiry(key, undefined);
      ctx.db.touch(key);
      return 1;
    },
  },
  ttlCommand('ttl', false),
  ttlCommand('pttl', true),
  {
    name: 'keys',
    arity: 2,
    write: false,
    handler: (ctx, argv) => {
      const pattern = argv[1] ?? '';
      const all = pattern === '*';
      const keys: Reply[] = [];
      for (const key of ctx.db.keys()) if (all || globMatch(pattern, key)) keys.push(key);
      return keys;
    },
  },
  { name: 'scan', arity: -2, write: false, handler: scan },
];

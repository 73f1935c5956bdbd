/**
 * The development token kept beside the local engine's data (`.data/dev-token` by default), so a
 * restart of `npm start` on the same data directory prints, and accepts, the token it printed
 * before: scripts, the dashboard's saved token and `ESQ_TOKEN` keep working. Written owner-only.
 * Only for development mode without API_TOKENS; production never makes up a token.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateDevToken } from '../../lib/api/auth.ts';

/** What generateDevToken makes: anything else in the file is not ours, and is replaced. */
const devTokenPattern = /^dev-[A-Za-z0-9_-]{32}$/;

/**
 * The token in `path`, or a new one written there (the directory is created).
 * @example const token = loadOrCreateDevToken('.data/dev-token');
 */
export function loadOrCreateDevToken(path: string): string {
  try {
    const kept = readFileSync(path, 'utf8').trim();
    if (devTokenPattern.test(kept)) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = generateDevToken();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  // writeFileSync's mode applies only to a file it creates; one it replaced keeps its own.
  chmodSync(path, 0o600);
  return token;
}

/**
 * The check the engine lane runs every script under (support/declared-keys.ts): a script that
 * touches a key its KEYS do not hold fails, one that stays within them runs, and the check knows
 * where the keys are in every command the queue's scripts call.
 */
import { expect, it } from 'vitest';
import { createManualClock } from '../../lib/clock.ts';
import { createEngine } from '../../lib/engine/engine.ts';
import { scripts } from '../../lib/queue/scripts.generated.ts';
import { createEngineClient } from '../../lib/redis/engine-client.ts';
import { runScript } from '../../lib/redis/run-script.ts';
import { declaredKeysClient, FIRST_ARG_KEY, OTHER_KEY_COMMANDS } from './support/declared-keys.ts';

const script = (name: string, source: string) => ({ name, sha: 'f'.repeat(39) + name.length, source });

it('fails a script that touches a key its KEYS do not hold, and runs one that stays within them', async () => {
  const strays = script('strays', "redis.call('SET', KEYS[1], 'a') return redis.call('GET', 'elsewhere')");
  const stays = script('stays', "redis.call('SET', KEYS[1], 'a') return redis.pcall('GET', KEYS[1])");
  const reads = script(
    'reads',
    "redis.call('XADD', KEYS[1], '*', 'f', 'v') return #redis.call('XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', KEYS[1], 'other', '>', '>')",
  );
  const client = declaredKeysClient(createEngineClient(createEngine({ clock: createManualClock() })), [
    strays,
    stays,
    reads,
  ]);
  await expect(runScript(client, strays, ['here'], [])).rejects.toThrow(/GET touched elsewhere, not in KEYS/);
  expect(await runScript(client, stays, ['here'], [])).toBe('a');
  // Stream reads name their keys after STREAMS, half of what follows.
  await expect(runScript(client, reads, ['s'], [])).rejects.toThrow(/XREADGROUP touched other/);
});

it("knows where the keys are in every command the queue's scripts call", () => {
  const known = new Set([...FIRST_ARG_KEY, ...OTHER_KEY_COMMANDS]);
  const called = new Set<string>();
  for (const { source } of Object.values(scripts)) {
    for (const match of source.matchAll(/redis\.p?call\(\s*'([A-Za-z]+)'|=\s*\{\s*'([A-Z]+)',/g)) {
      called.add((match[1] ?? match[2] ?? '').toUpperCase());
    }
  }
  expect(called.size).toBeGreaterThan(20);
  expect([...called].filter((command) => !known.has(command))).toEqual([]);
});

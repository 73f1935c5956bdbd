/** The embedded scripts match lib/queue/scripts/*.lua (regenerate with `npx tsx scripts/generate-lua.ts`). */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { generatedFile, renderGenerated } from '../../scripts/generate-lua.ts';

it('keeps lib/queue/scripts.generated.ts in step with the Lua sources', async () => {
  expect(await readFile(generatedFile, 'utf8')).toBe(await renderGenerated());
});

it('uses no Lua shebang flags or Lua 5.2+ syntax that Redis 7.0 would reject', async () => {
  const { scripts } = await import('../../lib/queue/scripts.generated.ts');
  for (const script of Object.values(scripts)) {
    expect(script.source.startsWith('#!')).toBe(false);
    const code = script.source.replace(/--[^\n]*/g, '');
    expect(code).not.toMatch(/\/\/|\bgoto\b|::\w+::|\bbit32\b|\butf8\./);
    expect(script.sha).toMatch(/^[0-9a-f]{40}$/);
  }
});

it('sends a script only the config fields it reads, and the script looks up only those', async () => {
  const { scripts } = await import('../../lib/queue/scripts.generated.ts');
  const { createScriptRunner } = await import('../../lib/queue/script-runner.ts');
  const { DEFAULT_CONFIG } = await import('../../lib/queue/rules.ts');
  const consume = scripts.consume;
  const read = [...consume.source.matchAll(/\bcfg\.([A-Za-z]+)/g)].map((m) => m[1]);
  expect(consume.configFields).toEqual([...new Set(read)].sort());
  expect(consume.configFields).toContain('visibilityTimeoutMs');
  const sent: string[][] = [];
  const run = createScriptRunner({
    evalsha: async (_sha, _keys, args) => {
      sent.push([...args]);
      return ['ok', 0, 1, -1, '', ''];
    },
    eval: async () => ['ok', 0, 1, -1, '', ''],
  });
  const args = { consumer: 'c', count: 1, now: 5, config: DEFAULT_CONFIG };
  await run(consume, { queue: 'q', group: 'g' }, args);
  await run(consume, { queue: 'q', group: 'g' }, args);
  const config = JSON.parse(sent[0]?.[4] ?? 'null') as Record<string, unknown>;
  expect(Object.keys(config).sort()).toEqual(consume.configFields);
  expect(config.visibilityTimeoutMs).toBe(DEFAULT_CONFIG.visibilityTimeoutMs);
  expect(sent[1]).toEqual(sent[0]);
});

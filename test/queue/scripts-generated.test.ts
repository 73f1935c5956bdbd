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

/**
 * The embedded scripts match lib/queue/scripts/*.lua (regenerate with `npm run generate`), and each
 * carries its header, its own code and the helpers it calls, once, without comments.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generatedFile, luaSegments, renderGenerated, stripComments } from '../../scripts/generate-lua.ts';

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
      return ['ok', 0, 1, -1, '', '', 16];
    },
    eval: async () => ['ok', 0, 1, -1, '', '', 16],
  });
  const args = {
    consumer: 'c',
    count: 1,
    now: 5,
    leaseMs: -1,
    maxBytes: 1024,
    answered: 0,
    config: DEFAULT_CONFIG,
    partition: 0,
  };
  await run(consume, { queue: 'q', group: 'g' }, args);
  await run(consume, { queue: 'q', group: 'g' }, args);
  const config = JSON.parse(sent[0]?.[7] ?? 'null') as Record<string, unknown>;
  expect(Object.keys(config).sort()).toEqual(consume.configFields);
  expect(config.visibilityTimeoutMs).toBe(DEFAULT_CONFIG.visibilityTimeoutMs);
  expect(sent[1]).toEqual(sent[0]);
});

describe('what each script carries', () => {
  it('holds each helper once, and only helpers it calls', async () => {
    const { scripts } = await import('../../lib/queue/scripts.generated.ts');
    for (const script of Object.values(scripts)) {
      const defined = [...script.source.matchAll(/^local function ([A-Za-z_]\w*)/gm)].map(
        (m) => m[1] as string,
      );
      expect(new Set(defined).size, script.name).toBe(defined.length);
      for (const name of defined) {
        const uses = script.source.match(new RegExp(`(?<![\\w.:])${name}\\b`, 'g'))?.length ?? 0;
        expect(uses, `${script.name}: ${name} is defined but never called`).toBeGreaterThan(1);
      }
    }
    // The sweep's phases are named, and consume carries the key lines' helpers but not the sweep's.
    expect(scripts.sweepQueue.source).toMatch(/^local function expire_leases\(/m);
    expect(scripts.consume.source).toMatch(/^local function serve_turns\(/m);
    expect(scripts.consume.source).not.toMatch(/clear_head|trim_acked/);
    expect(scripts.ping.source).not.toMatch(/local function/);
  });

  it("keeps the header's first line and strips every other comment", async () => {
    const { scripts } = await import('../../lib/queue/scripts.generated.ts');
    for (const script of Object.values(scripts)) {
      const lines = script.source.split('\n');
      expect(lines[0], script.name).toMatch(/^-- [a-z-]+: /);
      const rest = lines.slice(1).join('\n');
      expect(
        luaSegments(rest).filter((segment) => segment.kind === 'comment'),
        script.name,
      ).toEqual([]);
    }
    expect(stripComments('local a = \'--x\' -- note\n--[[ long\n]] local b = "--" --[==[ ]==]\n\n')).toBe(
      'local a = \'--x\'\n local b = "--"',
    );
  });

  it('keeps every Lua file within 350 lines and the generated module within 250 KB', async () => {
    const dir = new URL('../../lib/queue/scripts/', import.meta.url);
    const files = [
      ...(await readdir(dir)).filter((f) => f.endsWith('.lua')),
      ...(await readdir(new URL('include/', dir))).map((f) => `include/${f}`),
    ];
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const lines = (await readFile(new URL(file, dir), 'utf8')).split('\n').length;
      expect(lines, file).toBeLessThanOrEqual(350);
    }
    expect((await stat(generatedFile)).size).toBeLessThanOrEqual(250 * 1024);
  });
});

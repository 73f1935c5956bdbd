/**
 * The deploy-time checks CI must keep green: `wrangler deploy --dry-run` bundles the Worker with
 * wrangler.toml, and `deno check` type-checks the Deno entry with deno.json's pinned npm imports.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, startChild } from './support/processes.ts';

describe('deploy checks', () => {
  it('bundles the Worker with wrangler deploy --dry-run: minified, with its source map, zod in English only', async () => {
    const out = await mkdtemp(join(tmpdir(), 'wrangler-dry-'));
    const metafile = join(out, 'meta.json');
    const child = startChild(
      process.execPath,
      [
        join(projectRoot, 'node_modules/wrangler/bin/wrangler.js'),
        'deploy',
        '--dry-run',
        '--outdir',
        out,
        '--metafile',
        metafile,
      ],
      { WRANGLER_SEND_METRICS: 'false', CI: '1' },
    );
    try {
      expect([await child.exited, child.output()]).toEqual([
        0,
        expect.stringContaining('--dry-run: exiting now.'),
      ]);
      const bundle = await readFile(join(out, 'worker.js'), 'utf8');
      expect(bundle).toContain('scheduled');
      // Minified (no per-module path comments, which esbuild writes otherwise), and mapped back to
      // the sources.
      expect(bundle).not.toMatch(/^\/\/ \S*lib\/api\/app\.ts$/m);
      expect(bundle).toContain('//# sourceMappingURL=worker.js.map');
      const map = JSON.parse(await readFile(join(out, 'worker.js.map'), 'utf8')) as { sources: string[] };
      expect(map.sources.some((source) => source.endsWith('lib/api/app.ts'))).toBe(true);
      // wrangler.toml's alias keeps zod's 63 other locales out; English stays (zod's default).
      const { inputs } = JSON.parse(await readFile(metafile, 'utf8')) as { inputs: Record<string, unknown> };
      const locales = Object.keys(inputs).filter((path) => /zod\/v4\/locales\//.test(path));
      expect(locales.map((path) => path.replace(/^.*zod\/v4\/locales\//, ''))).toEqual(['en.js']);
    } finally {
      await child.kill();
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);

  it('type-checks the Deno entry with deno check', async () => {
    const child = startChild(join(projectRoot, 'node_modules/deno/deno'), ['check', 'functions/deno.ts'], {
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
    });
    try {
      expect([await child.exited, child.output()]).toEqual([0, expect.stringContaining('Check')]);
    } finally {
      await child.kill();
    }
  }, 120_000);

  it('pins the same npm versions in deno.json as package.json', async () => {
    const pkg = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8'));
    const deno = JSON.parse(await readFile(join(projectRoot, 'deno.json'), 'utf8'));
    for (const [name, specifier] of Object.entries(deno.imports as Record<string, string>)) {
      const match = /^npm:\/?(@?[^@]+)@([^/]+)\/?$/.exec(specifier);
      expect(match, specifier).not.toBeNull();
      const [, pkgName, version] = match!;
      expect([name, version]).toEqual([name, pkg.dependencies[pkgName!]]);
    }
  });
});

/** The embedded page matches lib/dashboard/page/ and shell.ts (regenerate with `npm run generate`). */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { generatedFile, renderGenerated } from '../../scripts/generate-dashboard.ts';

it('keeps lib/dashboard/assets.generated.ts in step with the page sources', async () => {
  // Compared as a whole but reported briefly: the bundle is one long line.
  const stale = (await readFile(generatedFile, 'utf8')) !== (await renderGenerated());
  expect(stale, 'lib/dashboard/assets.generated.ts is stale: run npm run generate').toBe(false);
});

it('keeps the page small: script, stylesheet and icon under 64 KiB together', async () => {
  const { dashboardAssets, dashboardPage } = await import('../../lib/dashboard/assets.generated.ts');
  const bytes = dashboardAssets.reduce((sum, asset) => sum + new TextEncoder().encode(asset.body).length, 0);
  expect(bytes).toBeLessThan(64 * 1024);
  expect(dashboardAssets.map((asset) => asset.name)).toEqual([
    expect.stringMatching(/^dashboard-[0-9a-f]{16}\.js$/),
    expect.stringMatching(/^dashboard-[0-9a-f]{16}\.css$/),
    expect.stringMatching(/^icon-[0-9a-f]{16}\.svg$/),
  ]);
  for (const asset of dashboardAssets) expect(dashboardPage.body).toContain(`dashboard/assets/${asset.name}`);
});

/**
 * `npm start` runs functions/node.ts bundled by esbuild into dist/node.mjs (the npm packages it
 * imports stay external, loaded from node_modules as before) instead of through tsx. tsx compiles
 * each module with keepNames, so every closure a request creates (the request budget's, the Redis
 * deadline's) is also renamed with Object.defineProperty, and it runs Node behind its loader
 * hooks; the bundle is plain JavaScript. Measured on /healthz of the in-process engine, CPU per
 * request, tsx vs bundle in alternating processes: 147 vs 128, 135 vs 119, 191 vs 146 us.
 * The benchmark bundles its servers the same way (bench/api/servers.ts). Run as a program
 * (`npm run build`) it writes dist/node.mjs; `npm start` does that before it starts the server.
 * The bundle needs only the production dependencies: after `npm ci --omit=dev` beside it,
 * `npm run start:prod` runs it (the Dockerfile's runtime stage does exactly that).
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { isProgram } from '../functions/support/is-program.ts';

const root = new URL('../', import.meta.url);

/** Where `npm start` finds the bundled server. */
export const nodeBundle = fileURLToPath(new URL('dist/node.mjs', root));

/**
 * Bundles `entry` (a Node program or module of this project) into one ES module at `outfile`,
 * with a linked source map, and beside it engine-thread.mjs, the local engine's thread
 * (functions/support/engine-thread.ts starts it from there), both from `checkout` (a benchmark's
 * baseline is another checkout, whose thread speaks its own protocol); resolves with `outfile`.
 * Each file is written beside its place and renamed into it, so a server starting while another
 * build runs (`npm start` twice, test files in parallel) reads a whole bundle, never a half-written
 * one.
 * @example await bundleForNode('functions/node.ts', 'dist/node.mjs')
 */
export async function bundleForNode(
  entry: string,
  outfile: string,
  checkout: string = fileURLToPath(root),
): Promise<string> {
  const bundle = (from: string, to: string) =>
    build({
      entryPoints: [resolve(checkout, from)],
      outfile: to,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // Dependencies load from node_modules: wasmoon finds its .wasm beside its own files.
      packages: 'external',
      sourcemap: 'linked',
      logLevel: 'warning',
      write: false,
    });
  const built = await Promise.all([
    bundle(entry, outfile),
    bundle('functions/support/engine-thread-worker.ts', join(dirname(outfile), 'engine-thread.mjs')),
  ]);
  const outputFiles = built.flatMap((result) => result.outputFiles);
  await mkdir(dirname(outfile), { recursive: true });
  // The maps first: a bundle in place always finds its map.
  const ordered = [...outputFiles].sort(
    (a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')),
  );
  for (const file of ordered) {
    const temporary = `${file.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path);
  }
  return outfile;
}

if (isProgram(import.meta.url, 'build-node')) {
  await bundleForNode('functions/node.ts', nodeBundle);
}

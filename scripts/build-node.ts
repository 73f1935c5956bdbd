/**
 * `npm start` runs functions/node.ts bundled by esbuild into dist/node.mjs (the npm packages it
 * imports stay external, loaded from node_modules as before) instead of through tsx. tsx compiles
 * each module with keepNames, so every closure a request creates (the request budget's, the Redis
 * deadline's) is also renamed with Object.defineProperty, and it runs Node behind its loader
 * hooks; the bundle is plain JavaScript. Measured on /healthz of the in-process engine, CPU per
 * request, tsx vs bundle in alternating processes: 147 vs 128, 135 vs 119, 191 vs 146 us.
 * The benchmark bundles its servers the same way (bench/api/servers.ts). Run as a program it
 * writes dist/node.mjs; `npm start` does that before it starts the server.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { isProgram } from '../functions/support/is-program.ts';

const root = new URL('../', import.meta.url);

/** Where `npm start` finds the bundled server. */
export const nodeBundle = fileURLToPath(new URL('dist/node.mjs', root));

/**
 * Bundles `entry` (a Node program or module of this project) into one ES module at `outfile`,
 * with a linked source map, and beside it engine-thread.mjs, the local engine's thread
 * (functions/support/engine-thread.ts starts it from there); resolves with `outfile`.
 * @example await bundleForNode('functions/node.ts', 'dist/node.mjs')
 */
export async function bundleForNode(entry: string, outfile: string): Promise<string> {
  const options = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies load from node_modules: wasmoon finds its .wasm beside its own files.
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  } as const;
  await Promise.all([
    build({ ...options, entryPoints: [fileURLToPath(new URL(entry, root))], outfile }),
    build({
      ...options,
      entryPoints: [fileURLToPath(new URL('functions/support/engine-thread-worker.ts', root))],
      outfile: join(dirname(outfile), 'engine-thread.mjs'),
    }),
  ]);
  return outfile;
}

if (isProgram(import.meta.url, 'build-node')) {
  await bundleForNode('functions/node.ts', nodeBundle);
}

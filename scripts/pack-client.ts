/**
 * `npm run pack:client`: builds the package `edge-stream-queue-client` from lib/client (the one
 * source; nothing is copied by hand) and packs it; the tarball's path is the last line printed.
 *
 *   dist/index.js        lib/client bundled by esbuild into one ES module, no imports at all
 *   dist/node-fetch.js   `edge-stream-queue-client/node-fetch`: createNodeFetch
 *                        (functions/support/node-fetch.ts), the client's fetch on Node; it imports
 *                        node:http and node:https only, and nothing else in the package does
 *   dist/esq.js          the command line (functions/cli) for plain Node >= 20; it imports
 *                        ./index.js and ./node-fetch.js
 *   dist/index.d.ts      the declarations, emitted by tsc from lib/client without node, zod or
 *   dist/node-fetch.d.ts hono types (the tree under dist/types/ mirrors the repository's), so a
 *                        strict NodeNext project type-checks with nothing else installed
 *
 * The build fails rather than ship a package that imports anything (a runtime dependency), whose
 * declarations name another package (node: built-ins included), or that packs to more than 100 KB.
 * Everything lands in build/client/ (git-ignored); the version is the repository's.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { isProgram } from '../functions/support/is-program.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const clientEntry = join(root, 'lib/client/index.ts');
const nodeFetchEntry = join(root, 'functions/support/node-fetch.ts');

export const PACKAGE_NAME = 'edge-stream-queue-client';
/** Where the package is staged and packed by default; a caller may pack elsewhere (tests do). */
export const defaultOutDir = join(root, 'build/client');
const stageOf = (outDir: string) => join(outDir, 'package');
const MAX_PACKED_BYTES = 100 * 1024;

/** Refuses any import the bundle would leave to the runtime, except Node's own in the CLI. */
function selfContained(allowNodeBuiltins: boolean): Plugin {
  return {
    name: 'self-contained',
    setup(context) {
      context.onResolve({ filter: /^[^./]/ }, (args) => {
        if (allowNodeBuiltins && args.path.startsWith('node:')) return { path: args.path, external: true };
        return { errors: [{ text: `${args.path} would be a runtime dependency of ${PACKAGE_NAME}` }] };
      });
    },
  };
}

/** The CLI imports the client and createNodeFetch from the package's own files, not second copies. */
const clientFromPackage: Plugin = {
  name: 'client-from-package',
  setup(context) {
    context.onResolve({ filter: /lib\/client\/index\.ts$/ }, () => ({ path: './index.js', external: true }));
    context.onResolve({ filter: /support\/node-fetch\.ts$/ }, () => ({
      path: './node-fetch.js',
      external: true,
    }));
  },
};

async function bundle(stageDir: string, version: string): Promise<void> {
  await build({
    entryPoints: [clientEntry],
    outfile: join(stageDir, 'dist/index.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    plugins: [selfContained(false)],
    legalComments: 'none',
    logLevel: 'warning',
  });
  await build({
    entryPoints: [nodeFetchEntry],
    outfile: join(stageDir, 'dist/node-fetch.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [selfContained(true)],
    legalComments: 'none',
    logLevel: 'warning',
  });
  await build({
    entryPoints: [join(root, 'functions/cli/esq.ts')],
    outfile: join(stageDir, 'dist/esq.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    define: { ESQ_VERSION: JSON.stringify(version) },
    plugins: [clientFromPackage, selfContained(true)],
    legalComments: 'none',
    logLevel: 'warning',
  });
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * tsc's declarations of `entry` and what it imports into `typesDir`, checked before any is written.
 * `nodeTypes`: the entry may use Node's types (createNodeFetch); its declarations still may not.
 */
function emitDeclarations(entry: string, typesDir: string, nodeTypes: boolean): void {
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    // No @types/node for lib/client: it is Web standards only, and its declarations must say so.
    types: nodeTypes ? ['node'] : [],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: root,
    outDir: typesDir,
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  if (diagnostics.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => root,
      getNewLine: () => '\n',
    };
    throw new Error(`declarations of ${relative(root, entry)}:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

/** The declarations of lib/client and of createNodeFetch, with `.ts` specifiers as `.js`. */
async function declarations(stageDir: string): Promise<void> {
  const typesDir = join(stageDir, 'dist/types');
  emitDeclarations(clientEntry, typesDir, false);
  emitDeclarations(nodeFetchEntry, typesDir, true);
  for (const file of await filesUnder(typesDir)) {
    const text = await readFile(file, 'utf8');
    const rewritten = text.replace(/((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1$2.js$3');
    const foreign = /(?:from|import)\s*\(?\s*['"]([^./'"][^'"]*)['"]/.exec(rewritten);
    if (foreign !== null) {
      throw new Error(`${relative(root, file)} imports ${foreign[1]}: the declarations must stand alone`);
    }
    // A triple-slash reference to Node's types would need @types/node in the user's project.
    if (/\/\/\/\s*<reference/.test(rewritten)) {
      throw new Error(`${relative(root, file)} references other types: the declarations must stand alone`);
    }
    await writeFile(file, rewritten);
  }
  await writeFile(
    join(stageDir, 'dist/index.d.ts'),
    "// The declarations of lib/client (the tree under ./types mirrors the repository's lib/).\nexport * from './types/lib/client/index.js';\n",
  );
  await writeFile(
    join(stageDir, 'dist/node-fetch.d.ts'),
    "// The declarations of createNodeFetch (the repository's functions/support/node-fetch.ts).\nexport * from './types/functions/support/node-fetch.js';\n",
  );
}

interface RootPackage {
  version: string;
  license?: string;
  repository?: unknown;
  homepage?: string;
}

async function manifest(stageDir: string, rootPackage: RootPackage): Promise<void> {
  const hasLicense = await stat(join(root, 'LICENSE')).then(
    () => true,
    () => false,
  );
  if (hasLicense) await copyFile(join(root, 'LICENSE'), join(stageDir, 'LICENSE'));
  await copyFile(join(root, 'lib/client/README.md'), join(stageDir, 'README.md'));
  const pkg = {
    name: PACKAGE_NAME,
    version: rootPackage.version,
    description:
      'Client, worker runtime and esq command line for edge-stream-queue, the HTTP work queue on Redis Streams. No dependencies; Node, Workers, Deno, Bun and browsers.',
    type: 'module',
    engines: { node: '>=20' },
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './node-fetch': { types: './dist/node-fetch.d.ts', default: './dist/node-fetch.js' },
      './package.json': './package.json',
    },
    main: './dist/index.js',
    types: './dist/index.d.ts',
    bin: { esq: 'dist/esq.js' },
    files: ['dist', 'README.md', ...(hasLicense ? ['LICENSE'] : [])],
    sideEffects: false,
    keywords: ['queue', 'redis', 'streams', 'worker', 'cloudflare-workers', 'deno', 'edge'],
    ...(rootPackage.license === undefined ? {} : { license: rootPackage.license }),
    ...(rootPackage.repository === undefined ? {} : { repository: rootPackage.repository }),
    ...(rootPackage.homepage === undefined ? {} : { homepage: rootPackage.homepage }),
  };
  await writeFile(join(stageDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

/** Builds the package into `<outDir>/package`; resolves with its version. */
export async function buildClientPackage(outDir = defaultOutDir): Promise<string> {
  const stageDir = stageOf(outDir);
  const rootPackage = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as RootPackage;
  await rm(outDir, { recursive: true, force: true });
  await mkdir(join(stageDir, 'dist'), { recursive: true });
  await bundle(stageDir, rootPackage.version);
  await declarations(stageDir);
  await manifest(stageDir, rootPackage);
  return rootPackage.version;
}

/**
 * Builds and packs the package; resolves with the tarball's absolute path.
 * @example const tarball = await packClient(); // …/build/client/edge-stream-queue-client-0.1.0.tgz
 */
export async function packClient(outDir = defaultOutDir): Promise<string> {
  const stageDir = stageOf(outDir);
  await buildClientPackage(outDir);
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', stageDir, '--pack-destination', outDir, '--json', '--ignore-scripts'],
    { cwd: outDir, env: { ...process.env, npm_config_update_notifier: 'false' } },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; size: number; files: { path: string }[] }[];
  if (packed === undefined) throw new Error('npm pack wrote no tarball');
  const tests = packed.files.filter((file) =>
    /(^|\/)(test|tests|__tests__)\/|\.test\.[jt]s$/.test(file.path),
  );
  if (tests.length > 0)
    throw new Error(`the package would ship tests: ${tests.map((f) => f.path).join(', ')}`);
  if (packed.size > MAX_PACKED_BYTES) {
    throw new Error(`the package packs to ${packed.size} bytes, over ${MAX_PACKED_BYTES}`);
  }
  return join(outDir, packed.filename);
}

if (isProgram(import.meta.url, 'pack-client')) {
  const tarball = await packClient();
  const { size } = await stat(tarball);
  console.log(`${PACKAGE_NAME}: ${(size / 1024).toFixed(1)} KB packed`);
  console.log(tarball);
}

/**
 * Whether a module is the program Node was started with, so an entry point starts its server
 * only when run (`node dist/node.mjs`, `tsx functions/node.ts`), never on import. Comparing
 * import.meta.url with argv[1] alone is not enough once modules are bundled: inside a bundle
 * (`npm start`'s, the benchmark's servers) every module's import.meta.url is the bundle's, so
 * each entry point it contains would take itself for the program. The file name settles it.
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `name`: the module's own file name without its extension.
 * @example if (isProgram(import.meta.url, 'node')) await main();
 */
export function isProgram(moduleUrl: string, name: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined || moduleUrl !== pathToFileURL(entry).href) return false;
  return basename(entry).replace(/\.[cm]?[jt]s$/, '') === name;
}

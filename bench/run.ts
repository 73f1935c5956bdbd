/**
 * `npm run bench`: runs every benchmark section in one process, one after another on the same
 * machine, and rewrites BENCHMARKS.md with their figures. `npm run bench -- engine` runs only the
 * sections whose name contains "engine" (and leaves the file alone).
 */
import { writeFile } from 'node:fs/promises';

/** A benchmark section: runs, then returns its Markdown (heading, command, table, verdict). */
export type BenchSection = () => Promise<string>;

const sections: Record<string, () => Promise<{ run: BenchSection }>> = {
  engine: () => import('./engine.ts'),
  scripting: () => import('./scripting.ts'),
  queue: () => import('./queue.ts'),
  api: () => import('./api.ts'),
  cluster: () => import('./cluster.ts'),
};

const filter = process.argv[2];
const chosen = Object.entries(sections).filter(([name]) => filter === undefined || name.includes(filter));
const parts: string[] = [];
for (const [name, load] of chosen) {
  console.log(`# ${name}`);
  const markdown = await (await load()).run();
  console.log(markdown);
  parts.push(markdown);
}

if (filter === undefined) {
  const header = [
    '# Benchmarks',
    '',
    'Produced by `npm run bench` (all sections in one run, on the same machine, one after another).',
    `Machine: ${process.platform} ${process.arch}, Node ${process.version}; run on ${new Date().toISOString()}.`,
    'Shared, noisy machine: compare the figures of one run side by side, not across runs.',
    '',
  ].join('\n');
  await writeFile('BENCHMARKS.md', `${header}\n${parts.join('\n\n')}\n`);
  console.log('wrote BENCHMARKS.md');
}
process.exit(0);

/**
 * `npm run bench`: runs every benchmark section in one process, one after another on the same
 * machine, and rewrites BENCHMARKS.md with their figures. `npm run bench -- engine` runs only the
 * sections whose name contains "engine" and replaces just those sections in BENCHMARKS.md (each
 * then says when it was measured), leaving the others as they were.
 */
import { readFile, writeFile } from 'node:fs/promises';

/** A benchmark section: runs, then returns its Markdown (heading, command, table, verdict). */
export type BenchSection = () => Promise<string>;

const sections: Record<string, () => Promise<{ run: BenchSection }>> = {
  engine: () => import('./engine.ts'),
  scripting: () => import('./scripting.ts'),
  queue: () => import('./queue.ts'),
  api: () => import('./api.ts'),
  client: () => import('./client.ts'),
  cluster: () => import('./cluster.ts'),
  idle: () => import('./idle.ts'),
  policies: () => import('./policies.ts'),
  groups: () => import('./groups.ts'),
  'rate-limits': () => import('./rate-limits.ts'),
  sqs: () => import('./sqs.ts'),
  pipeline: () => import('./pipeline.ts'),
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

/** BENCHMARKS.md with the `## name` sections given replaced (or appended), the rest kept. */
async function replaceSections(replacements: Map<string, string>): Promise<void> {
  const text = await readFile('BENCHMARKS.md', 'utf8').catch(() => '# Benchmarks\n');
  const chunks = text.split(/\n(?=## )/);
  const seen = new Set<string>();
  const out = chunks.map((chunk) => {
    const name = /^## (\S+)/.exec(chunk)?.[1];
    if (name === undefined || !replacements.has(name)) return chunk.trimEnd();
    seen.add(name);
    return replacements.get(name) as string;
  });
  for (const [name, markdown] of replacements) if (!seen.has(name)) out.push(markdown);
  await writeFile('BENCHMARKS.md', `${out.join('\n\n')}\n`);
}

if (filter !== undefined) {
  const stamp = `Measured on its own (\`npm run bench -- ${filter}\`) on ${new Date().toISOString()}.`;
  await replaceSections(new Map(chosen.map(([name], i) => [name, `${parts[i]?.trimEnd()}\n\n${stamp}`])));
  console.log(`replaced ${chosen.map(([name]) => name).join(', ')} in BENCHMARKS.md`);
} else {
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

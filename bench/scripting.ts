/** Benchmark section "scripting" (placeholder until its owner writes it). */
export async function run(): Promise<string> {
  return '## scripting\n\nNot measured yet.';
}

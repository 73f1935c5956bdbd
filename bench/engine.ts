/** Benchmark section "engine" (placeholder until its owner writes it). */
export async function run(): Promise<string> {
  return '## engine\n\nNot measured yet.';
}

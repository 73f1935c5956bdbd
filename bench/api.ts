/** Benchmark section "api" (placeholder until its owner writes it). */
export async function run(): Promise<string> {
  return '## api\n\nNot measured yet.';
}

/** Benchmark section "queue" (placeholder until its owner writes it). */
export async function run(): Promise<string> {
  return '## queue\n\nNot measured yet.';
}

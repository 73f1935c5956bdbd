/** What a call threw; the test fails when it did not throw. */
// biome-ignore lint/suspicious/noExplicitAny: tests read the SDK error's fields by name
export async function thrown(call: Promise<unknown>): Promise<any> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

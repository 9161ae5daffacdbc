/**
 * Polls `read` until `done` holds of what it answers, and answers that value: for an effect that
 * follows something the test cannot await (a background pass, another process, a worker thread).
 * No fixed sleep: it looks again every `everyMs`, and the deadline only stops a hung test, saying
 * what it waited for and the last value it read. For a plain condition, `done` is `Boolean`:
 * `await eventually(() => opened.length === 2, Boolean, 'both blobs opened')`.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000, everyMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`never happened within ${timeoutMs} ms: ${what} (last read: ${shown(value)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** the last value read, for the message: JSON where it can be (bigints as strings), else its text */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Runs tasks one at a time per key, in call order. Keeps a process from racing itself on one
 * stream (which would only cost retries); other processes are still caught by expected revisions.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => {}); // handled: the task's failure is its caller's, the next task runs either way
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

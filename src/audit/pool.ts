/**
 * At most `size` tasks in flight. `run` resolves once the task has started, waiting for a free slot
 * first, so a loop feeding the pool slows down to the pool's pace instead of queueing every task.
 * A task's error is thrown by the next `run` or by `drain`.
 */
export function createPool(size: number) {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const rethrow = () => {
    if (failure) throw failure.error;
  };
  return {
    async run(task: () => Promise<void>): Promise<void> {
      while (running.size >= size) await Promise.race(running);
      rethrow();
      const done: Promise<void> = task()
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => running.delete(done));
      running.add(done);
    },
    async drain(): Promise<void> {
      await Promise.all(running);
      rethrow();
    },
  };
}

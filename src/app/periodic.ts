/**
 * Runs `task` every `intervalMs`, never two runs at once; a failed run is logged and the next one
 * happens as usual. The timer does not keep the process alive.
 */
export function every(intervalMs: number, task: () => Promise<unknown>, log: (message: string, error: unknown) => void) {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= task()
      .catch((error) => log('periodic task failed', error))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

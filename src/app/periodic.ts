/**
 * Runs `task` every `intervalMs`, never two runs at once; a failed run is logged and the next one
 * happens as usual. The timer does not keep the process alive. `now()` runs it at once, unless a run
 * is under way (start-up work that should not wait a whole interval).
 */
export function every(intervalMs: number, task: () => Promise<unknown>, log: (message: string, error: unknown) => void) {
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= task()
      .catch((error) => log('periodic task failed', error))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    now(): void {
      run();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * A background pass run every `intervalMs` by the one process holding its lease (`holdLease`, asked
 * before each run; none: this process alone runs it). `start` and `stop` as the reconciler and the
 * refunder expose them.
 */
export function leasedPass(
  name: string,
  intervalMs: number,
  holdLease: (() => Promise<boolean>) | undefined,
  runOnce: () => Promise<unknown>,
  log: (message: string, error: unknown) => void,
) {
  let periodic: ReturnType<typeof every> | undefined;
  return {
    start(): void {
      const pass = async () => {
        if (!holdLease || (await holdLease())) await runOnce();
      };
      periodic = every(intervalMs, pass, (message, error) => log(`${name}: ${message}`, error));
    },
    async stop(): Promise<void> {
      await periodic?.stop();
    },
  };
}

import { bestEffort } from './bestEffort.js';

/**
 * One part of the running service: `start` takes what it holds (files, threads, timers, a port), `stop`
 * gives it back. A part with nothing to start or stop leaves that out.
 */
export interface Part {
  readonly name: string;
  start?(): unknown;
  stop?(): unknown;
}

/** A part that failed to stop (while unwinding a failed start, or at stop): logged, and the others still stop. */
export type StopFailure = (part: string, error: unknown) => void;

/**
 * The parts of a service in the order they started: stopped in reverse, so each stops while what it
 * uses still runs. A start that fails unwinds: the parts already started are stopped, in reverse,
 * and the start's error is rethrown, so a service that cannot start holds nothing (no file, port or thread).
 */
export interface Lifecycle {
  /** starts the parts in order, each once the one before it has started */
  start(...parts: Part[]): Promise<void>;
  /** a part whose start opens something the parts after it use: its value, closed at stop */
  open<T>(name: string, open: () => T | Promise<T>, close: (value: T) => unknown): Promise<T>;
  /** stops every part started, the last started first; each stops even if one before it failed, and the first failure is rethrown */
  stop(): Promise<void>;
  /** the names of the parts running, in the order they started */
  running(): string[];
}

export function createLifecycle(onStopFailure: StopFailure): Lifecycle {
  const started: Part[] = [];

  async function stopAll(): Promise<unknown[]> {
    const failures: unknown[] = [];
    for (let part = started.pop(); part; part = started.pop()) {
      try {
        await part.stop?.();
      } catch (error) {
        onStopFailure(part.name, error);
        failures.push(error);
      }
    }
    return failures;
  }

  const lifecycle: Lifecycle = {
    async start(...parts) {
      for (const part of parts) {
        try {
          await part.start?.();
        } catch (error) {
          await stopAll();
          throw error;
        }
        started.push(part);
      }
    },
    async open(name, open, close) {
      let value: Awaited<ReturnType<typeof open>> | undefined;
      await lifecycle.start({ name, start: async () => (value = await open()), stop: () => close(value!) });
      return value!;
    },
    async stop() {
      const failures = await stopAll();
      if (failures.length > 0) throw failures[0];
    },
    running: () => started.map((part) => part.name),
  };
  return lifecycle;
}

/**
 * Builds and starts a service on a new lifecycle: whatever fails on the way (a start, or the wiring
 * between two starts) stops the parts already started, in reverse, and is rethrown.
 */
export async function withLifecycle<T>(onStopFailure: StopFailure, build: (lifecycle: Lifecycle) => Promise<T>): Promise<T> {
  const lifecycle = createLifecycle(onStopFailure);
  try {
    return await build(lifecycle);
  } catch (error) {
    await bestEffort(lifecycle.stop(), 'the start failure is the one rethrown; each stop failure was reported as it came');
    throw error;
  }
}

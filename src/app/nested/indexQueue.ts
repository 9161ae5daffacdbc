import type { EventMetadata } from '../../ports/eventStore.js';

type Metadata = Omit<EventMetadata, 'schemaVersion'>;

/** Indexes one root; resolves once it is recorded (or there was nothing to do). */
export type IndexRoot = (rootId: string, metadata: Metadata, signal: AbortSignal) => Promise<unknown>;

export interface NestedIndexQueue {
  /**
   * Indexes the root in the background, after the roots queued before it. False when it is queued
   * or running already, when the queue is full, or once stopped: the recovery pass indexes what is
   * left (the pending-nested-index read model lists it until its index is complete).
   */
  enqueue(rootId: string, metadata: Metadata): boolean;
  /** roots queued or being indexed */
  readonly size: number;
  /** resolves when nothing is queued or running */
  idle(): Promise<void>;
  /** takes nothing more; the runs stop at their next entry (the recovery finishes them); resolves once they have */
  stop(): Promise<void>;
}

/**
 * Nested indexes are written after the upload has answered, here, in the process that accepted the
 * item: at most `concurrency` at once, so their signature checks take a bounded share of the
 * process (each run checks one entry at a time and gives the event loop back every few ms).
 */
export function createNestedIndexQueue(options: {
  index: IndexRoot;
  concurrency: number;
  /** roots waiting at most; more are left to the recovery pass rather than held in memory */
  maxQueued: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}): NestedIndexQueue {
  const waiting = new Map<string, Metadata>();
  const running = new Set<string>();
  const stopping = new AbortController();
  let idleWaiters: (() => void)[] = [];

  const settleIdle = () => {
    if (waiting.size > 0 || running.size > 0) return;
    for (const resolve of idleWaiters) resolve();
    idleWaiters = [];
  };

  function next(): void {
    while (running.size < options.concurrency && waiting.size > 0 && !stopping.signal.aborted) {
      const [rootId, metadata] = waiting.entries().next().value as [string, Metadata];
      waiting.delete(rootId);
      running.add(rootId);
      options
        .index(rootId, metadata, stopping.signal)
        .catch((error: unknown) => {
          if (!stopping.signal.aborted) options.log('indexing nested items failed; the recovery pass retries', { rootId, error: String(error) });
        })
        .finally(() => {
          running.delete(rootId);
          next();
          settleIdle();
        });
    }
  }

  return {
    enqueue(rootId, metadata) {
      if (stopping.signal.aborted || waiting.has(rootId) || running.has(rootId) || waiting.size >= options.maxQueued) return false;
      waiting.set(rootId, metadata);
      next();
      return true;
    },
    get size() {
      return waiting.size + running.size;
    },
    idle() {
      if (waiting.size === 0 && running.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      stopping.abort(new Error('stopping'));
      waiting.clear();
      settleIdle();
      await this.idle();
    },
  };
}

import type { ReadStore } from '../src/ports/readStore.js';
import { checkpointOf, type AnyProjection } from './definition.js';

/**
 * `waitFor` for a process without a projection runner of its own (the bundler role): polls the
 * checkpoints the projector writes in the shared read store until every projection passed `position`.
 */
export function createCheckpointWaiter(readStore: ReadStore, projections: readonly AnyProjection[], pollMs = 100) {
  const reached = async (position: bigint) => {
    for (const p of projections) {
      const checkpoint = await readStore.getCheckpoint(checkpointOf(p));
      if (checkpoint === undefined || checkpoint < position) return false;
    }
    return true;
  };
  return {
    async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (await reached(position)) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, pollMs));
      }
    },
  };
}

import { collectionOf, liveBundlesProjection, type LiveBundle } from '../../../projections/index.js';
import { every } from '../periodic.js';
import { advanceBundle, type TreeCache } from './advance.js';
import type { BundlerDeps } from './deps.js';
import { failExhaustedItems } from './failItems.js';
import { planBundles } from './plan.js';

/** After a failed step a bundle waits 1 s, 2 s, 4 s... up to a minute before the next try. */
const backoffMs = (failures: number) => Math.min(60_000, 1000 * 2 ** Math.min(failures - 1, 6));

/**
 * The bundler (a process manager; one active instance): each pass plans what is due, then moves
 * every live bundle one step forward. A gateway failure delays that bundle only, with backoff.
 */
export function createBundler(deps: BundlerDeps) {
  const log = deps.log ?? (() => {});
  const now = () => (deps.now ?? Date.now)();
  const trees: TreeCache = new Map();
  const failures = new Map<string, { count: number; retryAt: number }>();

  async function liveBundles(): Promise<string[]> {
    const ids: string[] = [];
    let afterId: string | undefined;
    for (;;) {
      const page = await deps.readStore.scan<LiveBundle>(collectionOf(liveBundlesProjection), { ...(afterId ? { afterId } : {}), limit: 1000 });
      ids.push(...page.map((p) => p.id));
      if (page.length < 1000) return ids;
      afterId = page[page.length - 1]!.id;
    }
  }

  async function step(planId: string): Promise<void> {
    const failure = failures.get(planId);
    if (failure && failure.retryAt > now()) return;
    try {
      // the steps that wait on nobody (prepare, post, upload) run back to back; confirmations take passes
      for (let bundle = await deps.bundles.read(planId); bundle; ) {
        const before = bundle.status;
        await advanceBundle(deps, bundle, trees);
        failures.delete(planId);
        const after = await deps.bundles.read(planId);
        if (after?.status === 'dropped' && before !== 'dropped') await failExhaustedItems(deps, after.items.map((i) => i.id));
        if (!after || after.status === before || !['planned', 'prepared', 'posted'].includes(after.status)) break;
        bundle = after;
      }
    } catch (error) {
      const count = (failure?.count ?? 0) + 1;
      failures.set(planId, { count, retryAt: now() + backoffMs(count) });
      log(`bundle ${planId}: step failed (attempt ${count}), retrying later`, error);
    }
  }

  async function runOnce(): Promise<void> {
    await planBundles(deps);
    for (const planId of await liveBundles()) await step(planId);
  }

  let periodic: ReturnType<typeof every> | undefined;
  return {
    runOnce,
    start(intervalMs: number) {
      periodic = every(intervalMs, runOnce, (message, error) => log(`bundler: ${message}`, error));
    },
    async stop() {
      await periodic?.stop();
    },
  };
}
export type Bundler = ReturnType<typeof createBundler>;

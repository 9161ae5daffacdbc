import { bundleLayout } from '../../bundling/index.js';
import { newPlanId } from '../../domain/bundle/ids.js';
import { packBundles, type Queued } from '../../domain/bundle/packing.js';
import { bundleQueueProjection, collectionOf, type QueuedItem } from '../../../projections/index.js';
import { BUNDLER, type BundlerDeps } from './deps.js';

/** Items waiting for a bundle, from the queue read model. */
async function waiting(deps: BundlerDeps): Promise<Queued[]> {
  const out: Queued[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await deps.readStore.scan<QueuedItem>(collectionOf(bundleQueueProjection), { ...(afterId ? { afterId } : {}), limit: 1000 });
    for (const { id, doc } of page) if (!doc.planId) out.push({ id, size: doc.size, acceptedAt: doc.acceptedAt });
    if (page.length < 1000) return out;
    afterId = page[page.length - 1]!.id;
  }
}

/**
 * Plans the bundles that are due, offsets fixed here. Waits until the queue read model shows each
 * plan, so the next pass never plans an item twice (the bundler is a single instance).
 */
export async function planBundles(deps: BundlerDeps): Promise<string[]> {
  const now = (deps.now ?? Date.now)();
  const planned: string[] = [];
  for (const items of packBundles(await waiting(deps), deps.settings.limits, now)) {
    const layout = bundleLayout(items.map(({ id, size }) => ({ id, size })));
    const planId = newPlanId();
    const { position } = await deps.bundles.execute(
      {
        type: 'Plan',
        data: { planId, items: layout.items.map(({ id, size, offset }) => ({ id, size, offset })), headerSize: layout.headerSize, totalSize: layout.totalSize, now },
      },
      BUNDLER,
    );
    if (position !== undefined) await deps.awaitProjection?.(position);
    planned.push(planId);
  }
  return planned;
}

import type { ItemDamage } from '../../bundling/index.js';
import type { BundleCommand } from '../../domain/bundle/decider.js';
import type { Bundle } from '../../domain/bundle/state.js';
import { BUNDLER, type BundlerDeps } from './deps.js';
import { fenceCheck } from './fence.js';

/** at most this many damaged items are named in the drop's reason (the event lists them all) */
const NAMED = 5;

/**
 * Items of the bundle whose blobs are not what they were accepted with: each is recorded damaged
 * on its own stream (it leaves the queue and is never posted until repaired), then the bundle is
 * dropped saying why; the drop counts as no attempt of the other items, planned again next pass.
 * Repeated after a crash, the findings already recorded decide nothing and the drop happens.
 */
export async function dropForDamage(
  deps: BundlerDeps,
  bundle: Bundle,
  damaged: readonly ItemDamage[],
  record: (command: BundleCommand) => Promise<void>,
): Promise<void> {
  const now = deps.now();
  for (const { id, found, size, sha256 } of damaged) {
    const data = { id, found, ...(size !== undefined ? { size } : {}), ...(sha256 !== undefined ? { sha256 } : {}), planId: bundle.planId, now };
    await deps.items.execute({ type: 'RecordDamage', data }, BUNDLER, fenceCheck(deps));
  }
  const named = damaged.slice(0, NAMED).map((d) => `${d.id} (${d.found})`);
  const more = damaged.length > NAMED ? ` and ${damaged.length - NAMED} more` : '';
  const reason = `stored bytes of ${damaged.length} item${damaged.length === 1 ? '' : 's'} no longer match their acceptance: ${named.join(', ')}${more}`;
  deps.log?.(`bundle ${bundle.planId}: ${reason}`);
  await record({ type: 'Drop', data: { planId: bundle.planId, reason, damagedItemIds: damaged.map((d) => d.id), now } });
}

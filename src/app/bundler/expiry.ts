import type { SignedBundle } from '../../domain/bundle/state.js';
import type { TransactionStatus } from '../../ports/gateway.js';
import type { BundlerDeps } from './deps.js';

/**
 * Why the network will never mine the bundle's transaction, or undefined while it still may.
 *
 * A transaction is valid only while its anchor is among the last 50 blocks. `anchorHeight` is the
 * gateway's height when the anchor was fetched, at or above the anchor block's own height, so a
 * transaction not in a block `dropAfterBlocks` later is past its validity: dropping it then can
 * never leave its items in two mined bundles. The transaction's status is asked last (unless
 * known), so a failing post before expiry costs one `GET /info` only.
 */
export async function unseenPastAnchor(deps: BundlerDeps, bundle: SignedBundle, signal?: AbortSignal, known?: TransactionStatus): Promise<string | undefined> {
  const call = signal ? { signal } : {};
  const height = await deps.gateway.currentHeight(call);
  const age = height - bundle.anchorHeight;
  if (age <= deps.settings.dropAfterBlocks) return undefined;
  const status = known ?? (await deps.gateway.transactionStatus(bundle.txId, call));
  return status.status === 'confirmed' ? undefined : `not seen ${age} blocks after its anchor (${status.status})`;
}

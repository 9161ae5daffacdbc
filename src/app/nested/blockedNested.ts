import type { BlobStore } from '../../ports/blobStore.js';
import { Forbidden } from '../../domain/errors.js';
import { blockedOf, type BlockCheck } from '../blocklist.js';
import { walkNested, type NestedRoot } from './findNested.js';
import { nestedLimitsFor, type RecordNestedDeps } from './recordNested.js';

export interface BlockedNestedDeps extends Pick<RecordNestedDeps, 'limits' | 'freeMaxItems'> {
  blobStore: BlobStore;
  blocklist: BlockCheck;
}

/**
 * Refuses (403 `Forbidden`) an item whose payload is a bundle holding, at a depth and within the
 * count that indexing looks at, an item signed by a blocked owner: accepted, those bytes would be
 * bundled to Arweave under this service's signature, though the owner could not upload them itself.
 * Run before the receipt, on the bytes committed under the item's key (a refusal takes them back).
 * Only the entries' headers are read (no signature checks): an entry that names a blocked owner is
 * refused even if its signature would not verify. Nothing is read while the block list is empty.
 */
export async function refuseBlockedNested(deps: BlockedNestedDeps, root: NestedRoot, winc: string): Promise<void> {
  const { blocklist } = deps;
  if (blocklist.isEmpty()) return;
  let found: string | undefined;
  const ownerBlocked = (addresses: readonly string[]) => (found = blockedOf(blocklist, addresses));
  for await (const finding of walkNested(deps.blobStore, root, { limits: nestedLimitsFor(winc, deps), ownerBlocked, verify: false })) {
    if (found !== undefined && 'unindexed' in finding) throw new Forbidden(`${root.id} holds ${finding.unindexed.id}: ${finding.unindexed.reason}`);
  }
}

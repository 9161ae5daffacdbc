import type { BlobStore } from '../ports/blobStore.js';
import type { RsaPrivateJwk } from '../wallet/rsaJwk.js';
import { checkedBundleBytes, type CheckedEntry } from './checkedBytes.js';
import type { BundleLayout } from './layout.js';
import { computeDataRoot, type DataTree } from './merkle.js';
import { signBundleTransaction, type BundleTransaction } from './transaction.js';

export interface PrepareBundleInput {
  blobStore: BlobStore;
  /** from `bundleLayout`, fixed at planning; each item's sha256 as accepted, to check its blob against */
  layout: BundleLayout<CheckedEntry>;
  jwk: RsaPrivateJwk;
  anchor: string;
  /** winston for `layout.totalSize` bytes */
  reward: string;
}

export interface PreparedBundle {
  tx: BundleTransaction;
  /** kept to post the chunks (`chunkUploads`); rebuilt by streaming the bundle again when lost */
  tree: DataTree;
}

/**
 * Streams the bundle once to compute its data root, checking every blob's length and sha256 on the
 * way (BundleItemsDamaged names the items whose blobs differ), then signs its transaction.
 * Memory: one blob read chunk plus the tree's hashes.
 */
export async function prepareBundle(input: PrepareBundleInput): Promise<PreparedBundle> {
  const { blobStore, layout } = input;
  const tree = await computeDataRoot(checkedBundleBytes(blobStore, layout.items));
  // lengths were checked blob by blob, so this holds unless the layout was edited after planning
  if (tree.dataSize !== layout.totalSize) {
    throw new Error(`bundle streamed ${tree.dataSize} bytes, its layout says ${layout.totalSize}`);
  }
  const tx = await signBundleTransaction({
    jwk: input.jwk,
    anchor: input.anchor,
    reward: input.reward,
    dataRoot: tree.dataRoot,
    dataSize: tree.dataSize,
  });
  return { tx, tree };
}

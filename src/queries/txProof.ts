import type { ReadStore } from '../ports/readStore.js';
import { BlobNotFound, type BlobStore } from '../ports/blobStore.js';
import type { DataItemId } from '../domain/ids.js';
import { loadTree } from '../bundling/treeBlob.js';
import type { DataTree } from '../bundling/merkle.js';
import { createLru } from '../lru.js';
import { collectionOf } from '../../projections/definition.js';
import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { nestedOffsetsProjection, type NestedOffsetsDocument } from '../../projections/nestedOffsets.js';
import { bundleProofsProjection, type BundleProofDocument } from '../../projections/bundleProofs.js';

/**
 * `GET /tx/:id/proof` (CONTRACT.md section 10): what shows, without trusting this service, that an
 * item's bytes are in a mined Arweave transaction. The item's place comes from the read models; its
 * chunks' Merkle paths from the root transaction's tree, kept per bundle when it was prepared
 * (src/bundling/treeBlob.ts): no byte of the bundle is read, no hash of the tree computed again.
 */
export interface TxProof {
  id: string;
  rootTransactionId: string;
  /** base64url */
  dataRoot: string;
  dataSize: number;
  /** where the raw item's bytes are in the root transaction's data */
  itemOffset: number;
  itemSize: number;
  block: { height: number; indepHash: string } | null;
  /** how many chunks hold the item (`chunks()` yields that many) */
  chunkCount: number;
  /**
   * each chunk holding a byte of the item, in order: `offset` is the chunk's last byte (arweave-js
   * `validatePath(dataRoot, offset, 0, dataSize, dataPath)` accepts it), `dataPath` base64url. A
   * generator: a 2 GiB item has about 8,200 paths (some 14 MB of JSON), made as they are sent.
   */
  chunks(): Generator<ProofChunk>;
}

export interface ProofChunk {
  offset: number;
  dataPath: string;
}

/** trees kept in memory: about 1 MB for a 2 GiB bundle, 4 MB for the largest (8 GiB) */
export const PROOF_TREE_CACHE = 8;

/** An item and where it is: a top-level item from its own status, a nested one through its root's. */
interface Placed {
  status: TxStatusDocument;
  itemOffset: number;
  itemSize: number;
}

export function createTxProofQuery(deps: {
  readStore: ReadStore;
  blobStore: Pick<BlobStore, 'read'>;
  treeCacheSize?: number;
}): (id: DataItemId) => Promise<TxProof | undefined> {
  const { readStore, blobStore } = deps;
  const get = async <T>(projection: { name: string; version: number }, id: string) => (await readStore.get<T>(collectionOf(projection), id))?.doc;
  // Promises, so that requests for one bundle at once load its tree once. A failed load is not kept.
  const trees = createLru<string, Promise<DataTree | undefined>>(deps.treeCacheSize ?? PROOF_TREE_CACHE);

  async function placeOf(id: string): Promise<Placed | undefined> {
    const own = await get<TxStatusDocument>(txStatusProjection, id);
    if (own)
      return own.startOffsetInRootBundle === undefined ? undefined : { status: own, itemOffset: own.startOffsetInRootBundle, itemSize: own.rawContentLength };
    const nested = await get<NestedOffsetsDocument>(nestedOffsetsProjection, id);
    const root = nested && (await get<TxStatusDocument>(txStatusProjection, nested.rootId));
    if (!nested || root?.startOffsetInRootBundle === undefined) return undefined;
    // inside its root item's bytes, which are at the root's offset (CONTRACT.md section 6)
    return { status: root, itemOffset: root.startOffsetInRootBundle + nested.offsetInRootItem, itemSize: nested.rawContentLength };
  }

  function treeOf(planId: string, bundle: BundleProofDocument): Promise<DataTree | undefined> {
    let tree = trees.get(planId);
    if (!tree) {
      const loading = loadChecked(blobStore, planId, bundle);
      trees.set(planId, loading);
      // none found, or a failed read: asked again next time (the bundler may keep it meanwhile)
      const forget = () => trees.get(planId) === loading && trees.delete(planId);
      loading.then((found) => found ?? forget(), forget);
      tree = loading;
    }
    return tree;
  }

  return async (id) => {
    const place = await placeOf(id);
    // no root transaction yet, or its bytes are not the ones the bundle will carry (being dropped)
    const { planId, bundleId, damaged } = place?.status ?? {};
    if (!place || planId === undefined || bundleId === undefined || damaged) return undefined;
    const bundle = await get<BundleProofDocument>(bundleProofsProjection, planId);
    if (!bundle || bundle.txId !== bundleId) return undefined;
    const tree = await treeOf(planId, bundle);
    if (!tree) return undefined;
    return proofOf(id, bundle, tree, place);
  };
}

/** the bundle's tree, if it was kept; one whose root is not the signed one is a fault, not a proof */
async function loadChecked(blobStore: Pick<BlobStore, 'read'>, planId: string, bundle: BundleProofDocument): Promise<DataTree | undefined> {
  let tree: DataTree;
  try {
    tree = await loadTree(blobStore, planId);
  } catch (error) {
    // prepared before trees were kept: no proof can be given
    if (BlobNotFound.is(error)) return undefined;
    throw error;
  }
  const root = Buffer.from(tree.dataRoot).toString('base64url');
  if (root !== bundle.dataRoot || tree.dataSize !== bundle.dataSize) {
    throw new Error(
      `tree of plan ${planId} has root ${root} over ${tree.dataSize} bytes; its transaction was signed with ${bundle.dataRoot} over ${bundle.dataSize}`,
    );
  }
  return tree;
}

function proofOf(id: string, bundle: BundleProofDocument, tree: DataTree, { itemOffset, itemSize }: Placed): TxProof {
  const first = tree.chunkIndexOf(itemOffset);
  const last = tree.chunkIndexOf(itemOffset + itemSize - 1);
  return {
    id,
    rootTransactionId: bundle.txId,
    dataRoot: bundle.dataRoot,
    dataSize: bundle.dataSize,
    itemOffset,
    itemSize,
    block: bundle.block ?? null,
    chunkCount: last - first + 1,
    *chunks() {
      for (let index = first; index <= last; index++) {
        yield { offset: tree.chunk(index).maxByteRange - 1, dataPath: tree.proofFor(index).toString('base64url') };
      }
    },
  };
}

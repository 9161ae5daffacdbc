import type { BlobStore } from '../ports/blobStore.js';
import { HashList } from './hashList.js';
import { DataTree } from './merkle.js';

/**
 * A bundle's chunk hashes, kept in the blob store from its preparation on, so that the Merkle path
 * of any chunk (`GET /tx/:id/proof`) is computed without the bundle's bytes: a tree is its leaves,
 * and its leaves are each chunk's sha256 and end offset. 40 bytes a chunk (328 KiB for a 2 GiB
 * bundle), where computing them again would read the whole bundle, whose items' blobs may be gone.
 *
 * Format: per chunk, in order, the empty last chunk of a multiple of 256 KiB included (it has a
 * leaf), its 32-byte sha256 then its end offset as an 8-byte big-endian unsigned integer.
 */

/** the blob store's prefix of tree blobs: none of the prefixes whose blobs an event owns (orphanBlobs.ts) */
export const TREE_BLOB_PREFIX = 'bundle-trees/';
export const treeBlobKey = (planId: string): string => `${TREE_BLOB_PREFIX}${planId}`;

const RECORD = 40;
/** records per piece written: 40 KiB */
const BATCH = 1024;

/** The tree's chunk hashes as the blob's bytes, a batch at a time. */
export async function* treeRecords(tree: DataTree): AsyncGenerator<Uint8Array> {
  const { hashed } = tree;
  for (let first = 0; first < hashed.length; first += BATCH) {
    const count = Math.min(BATCH, hashed.length - first);
    const piece = Buffer.alloc(count * RECORD);
    for (let i = 0; i < count; i++) {
      piece.set(hashed.hash(first + i), i * RECORD);
      piece.writeBigUInt64BE(BigInt(hashed.end(first + i)), i * RECORD + 32);
    }
    yield piece;
  }
}

/** Writes the tree's blob under the plan's key (replacing one there: the same plan always has the same tree). */
export async function saveTree(blobStore: Pick<BlobStore, 'put'>, planId: string, tree: DataTree): Promise<void> {
  await blobStore.put(treeBlobKey(planId), treeRecords(tree));
}

/**
 * The tree of a blob written by `saveTree`, its layers built again (about 50,000 hashes for 2 GiB).
 * Rejects with BlobNotFound when there is none (a bundle prepared before trees were kept), and with
 * a RangeError when the blob is not a list of records; the caller compares the root with the one
 * the transaction was signed with.
 */
export async function loadTree(blobStore: Pick<BlobStore, 'read'>, planId: string): Promise<DataTree> {
  const hashed = new HashList();
  const record = Buffer.alloc(RECORD);
  let filled = 0;
  for await (const chunk of await blobStore.read(treeBlobKey(planId))) {
    const bytes = chunk as Uint8Array;
    for (let at = 0; at < bytes.byteLength;) {
      const take = Math.min(RECORD - filled, bytes.byteLength - at);
      record.set(bytes.subarray(at, at + take), filled);
      filled += take;
      at += take;
      if (filled === RECORD) {
        hashed.push(record.subarray(0, 32), Number(record.readBigUInt64BE(32)));
        filled = 0;
      }
    }
  }
  if (filled !== 0) throw new RangeError(`tree blob of plan ${planId} ends in the middle of a record`);
  return new DataTree(hashed);
}

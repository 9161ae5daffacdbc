import { createHash } from 'node:crypto';
import type { BlobStore } from '../ports/blobStore.js';
import { HashList } from './hashList.js';
import { DataTree } from './merkle.js';

/**
 * A bundle's Merkle tree, kept in the blob store from its preparation on, so that the path of any
 * chunk (`GET /tx/:id/proof`) is read, not computed: computing it again would read the whole bundle
 * (whose items' blobs may be gone), and even rebuilding it from the chunk hashes alone takes some
 * 57,000 sha256 (150 ms of a busy core for 2 GiB) per load. Kept whole, loading it is a read and one
 * sha256 over the blob: about 1 MiB for a 2 GiB bundle (8,193 chunks), 3.8 MiB for 8 GiB.
 *
 * Format: the leaf count (8 bytes, big-endian); per chunk, in order (the empty last chunk of a
 * multiple of 256 KiB included: it has a leaf), its sha256 and end offset; then every layer of the
 * tree from the leaves up to the root, each node its hash and end offset; a hash and its offset
 * are 32 bytes then 8 (big-endian); last, the sha256 of all that, so a blob that changed is refused.
 */

/** the blob store's prefix of tree blobs: none of the prefixes whose blobs an event owns (orphanBlobs.ts) */
export const TREE_BLOB_PREFIX = 'bundle-trees/';
export const treeBlobKey = (planId: string): string => `${TREE_BLOB_PREFIX}${planId}`;

const RECORD = 40;
/** records per piece written: 40 KiB */
const BATCH = 1024;

/** The tree as the blob's bytes, a batch of records at a time. */
export async function* treeRecords(tree: DataTree): AsyncGenerator<Uint8Array> {
  const digest = createHash('sha256');
  const out = (piece: Buffer) => {
    digest.update(piece);
    return piece;
  };
  const count = Buffer.alloc(8);
  count.writeBigUInt64BE(BigInt(tree.hashed.length));
  yield out(count);
  for (const list of [tree.hashed, ...tree.layers]) {
    for (let first = 0; first < list.length; first += BATCH) yield out(recordsOf(list, first, Math.min(BATCH, list.length - first)));
  }
  yield digest.digest();
}

function recordsOf(list: HashList, first: number, count: number): Buffer {
  const piece = Buffer.alloc(count * RECORD);
  for (let i = 0; i < count; i++) {
    piece.set(list.hash(first + i), i * RECORD);
    piece.writeBigUInt64BE(BigInt(list.end(first + i)), i * RECORD + 32);
  }
  return piece;
}

/** Writes the tree's blob under the plan's key (replacing one there: the same plan always has the same tree). */
export async function saveTree(blobStore: Pick<BlobStore, 'put'>, planId: string, tree: DataTree): Promise<void> {
  await blobStore.put(treeBlobKey(planId), treeRecords(tree));
}

/**
 * The tree of a blob written by `saveTree`, as it was. Rejects with BlobNotFound when there is none
 * (a bundle prepared before trees were kept), and with a RangeError when the blob is not one
 * `saveTree` wrote or changed since; the caller compares the root with the one the transaction was
 * signed with.
 */
export async function loadTree(blobStore: Pick<BlobStore, 'read'>, planId: string): Promise<DataTree> {
  const parts: Buffer[] = [];
  for await (const chunk of await blobStore.read(treeBlobKey(planId))) parts.push(chunk as Buffer);
  const blob = Buffer.concat(parts);
  const refused = (why: string) => new RangeError(`tree blob of plan ${planId} ${why}`);
  if (blob.length < 8 + 32) throw refused(`has ${blob.length} bytes`);
  const body = blob.subarray(0, blob.length - 32);
  if (!createHash('sha256').update(body).digest().equals(blob.subarray(body.length))) throw refused('does not match its checksum');
  const leafCount = Number(body.readBigUInt64BE(0));
  const sizes = [leafCount];
  for (let n = leafCount; n > 1;) sizes.push((n = Math.ceil(n / 2)));
  if (leafCount < 1 || 8 + RECORD * (leafCount + sizes.reduce((a, b) => a + b, 0)) !== body.length) {
    throw refused(`of ${body.length} bytes does not hold a tree of ${leafCount} leaves`);
  }
  let at = 8;
  const [hashed, ...layers] = [leafCount, ...sizes].map((count) => {
    const list = new HashList(count);
    for (let i = 0; i < count; i++, at += RECORD) list.push(body.subarray(at, at + 32), Number(body.readBigUInt64BE(at + 32)));
    return list;
  });
  return new DataTree(hashed!, layers);
}

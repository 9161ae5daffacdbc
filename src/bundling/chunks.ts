import { createHash } from 'node:crypto';
import type { BlobStore } from '../ports/blobStore.js';
import { bundleRange, type BlobEntry } from './bundleStream.js';
import { BundleChunkMismatch } from './errors.js';
import type { BundleLayout } from './layout.js';
import type { DataTree } from './merkle.js';

/** The body of a gateway's `POST /chunk`, as arweave-js `Transaction.getChunk` builds it. */
export interface ChunkUpload {
  data_root: string;
  data_size: string;
  data_path: string;
  /** the chunk's last byte in the data */
  offset: string;
  chunk: string;
}

export interface ChunkUploadOptions {
  /** resume a post that stopped at this chunk */
  fromIndex?: number;
}

/**
 * One upload body per chunk, in order, each read back from the blobs by range: one chunk (256 KiB,
 * about 350 KiB as base64url) in memory at a time. Each chunk's hash is checked against the tree,
 * so a blob that changed since the root was computed fails here instead of at the gateway.
 */
export async function* chunkUploads(
  blobStore: BlobStore,
  layout: BundleLayout<BlobEntry>,
  tree: DataTree,
  options: ChunkUploadOptions = {},
): AsyncGenerator<ChunkUpload> {
  checkTreeFits(layout, tree);
  for (let index = options.fromIndex ?? 0; index < tree.chunkCount; index++) yield await chunkUploadAt(blobStore, layout, tree, index);
}

/** the tree was computed from data of the layout's size: its chunks' ranges are the layout's */
export function checkTreeFits(layout: BundleLayout<BlobEntry>, tree: DataTree): void {
  if (tree.dataSize !== layout.totalSize) {
    throw new RangeError(`data tree of ${tree.dataSize} bytes for a bundle of ${layout.totalSize}`);
  }
}

/** The upload body of chunk `index`, read back by range and checked against the tree (as `chunkUploads`). */
export async function chunkUploadAt(blobStore: BlobStore, layout: BundleLayout<BlobEntry>, tree: DataTree, index: number): Promise<ChunkUpload> {
  const { minByteRange, maxByteRange, dataHash } = tree.chunk(index);
  const bytes = await collect(bundleRange(blobStore, layout, minByteRange, maxByteRange));
  if (!createHash('sha256').update(bytes).digest().equals(dataHash)) throw new BundleChunkMismatch(index);
  return {
    data_root: Buffer.from(tree.dataRoot).toString('base64url'),
    data_size: String(tree.dataSize),
    data_path: tree.proofFor(index).toString('base64url'),
    offset: String(maxByteRange - 1),
    chunk: bytes.toString('base64url'),
  };
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

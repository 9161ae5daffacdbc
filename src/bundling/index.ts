/** ANS-104 bundles and their Arweave transactions, built from blobs without holding a bundle in memory. */
export { bundleHeaderSize, bundleLayout, isItemId, type BundleEntry, type BundleLayout, type PlacedEntry } from './layout.js';
export { bundleHeader, headerRange } from './header.js';
export { bundleBytes, bundleRange, type BlobEntry } from './bundleStream.js';
export { MAX_CHUNK_SIZE, MIN_CHUNK_SIZE, type HashedChunk } from './chunker.js';
export { computeDataRoot, DataTree, DataTreeBuilder } from './merkle.js';
export { BUNDLE_TAGS, signBundleTransaction, type BundleTransaction, type BundleTransactionInput } from './transaction.js';
export { chunkUploadAt, chunkUploads, type ChunkUpload, type ChunkUploadOptions } from './chunks.js';
export { PostedChunks, postChunks, type PostChunksInput } from './postChunks.js';
export { prepareBundle, type PrepareBundleInput, type PreparedBundle } from './prepare.js';
export { BundleBlobMismatch, BundleChunkMismatch, BundleDataRootChanged, BundleItemsDamaged, type ItemDamage } from './errors.js';
export { checkedBundleBytes, type CheckedEntry } from './checkedBytes.js';
export { loadTree, saveTree, TREE_BLOB_PREFIX, treeBlobKey, treeRecords } from './treeBlob.js';

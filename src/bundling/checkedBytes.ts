import { createHash } from 'node:crypto';
import { BlobNotFound, type BlobStore } from '../ports/blobStore.js';
import type { BlobEntry } from './bundleStream.js';
import { BundleItemsDamaged, type ItemDamage } from './errors.js';
import { bundleHeader } from './header.js';
import { bundleLayout } from './layout.js';
import { bestEffort } from '../bestEffort.js';

/** An item of a bundle with what its blob must hold: its size, and its sha256 when known. */
export interface CheckedEntry extends BlobEntry {
  /** hex sha256 of the raw item, as recorded when it was accepted */
  sha256?: string;
}

/**
 * The whole bundle, as `bundleBytes`, while every item's blob is checked against what it was
 * accepted with: its size and its sha256, hashed as the bytes go by, so the bundle is read once
 * for the data root and the check together. A damaged blob (missing, shorter, longer, other
 * bytes) does not stop the pass: every item is checked, then BundleItemsDamaged names them all.
 * After the first damage nothing more is yielded (whatever the caller computes is moot). A blob
 * the store fails to read (an I/O error, the store down) is no damage: that error is thrown.
 */
export async function* checkedBundleBytes(blobStore: BlobStore, entries: readonly CheckedEntry[]): AsyncGenerator<Uint8Array> {
  bundleLayout(entries); // checks ids and sizes before any byte goes out
  const damaged: ItemDamage[] = [];
  yield bundleHeader(entries);
  for (const entry of entries) {
    const found = yield* checkedItem(blobStore, entry, damaged.length === 0);
    if (found) damaged.push(found);
  }
  if (damaged.length > 0) throw new BundleItemsDamaged(damaged);
}

/** one item's blob, yielded while `passOn`; what is wrong with it, if anything */
async function* checkedItem(blobStore: BlobStore, entry: CheckedEntry, passOn: boolean): AsyncGenerator<Uint8Array, ItemDamage | undefined> {
  const { id, blobKey, size } = entry;
  let source: AsyncIterable<unknown>;
  try {
    source = await blobStore.read(blobKey);
  } catch (error) {
    if (BlobNotFound.is(error)) return { id, blobKey, found: 'missing' };
    throw error;
  }
  // no digest to compare with: no second hash over the bytes
  const hash = entry.sha256 !== undefined ? createHash('sha256') : undefined;
  let read = 0;
  // breaking out of for-await destroys the read stream: a long blob leaves no open file
  for await (const chunk of source) {
    const bytes = chunk as Uint8Array;
    read += bytes.byteLength;
    if (read > size) {
      const held = await bestEffort(blobStore.stat(blobKey), 'the bytes read are the measure then');
      return { id, blobKey, found: 'long', size: Math.max(read, held?.size ?? 0) };
    }
    hash?.update(bytes);
    if (passOn) yield bytes;
  }
  const sha256 = hash?.digest('hex');
  if (read < size) return { id, blobKey, found: 'short', size: read, ...(sha256 !== undefined ? { sha256 } : {}) };
  if (sha256 !== undefined && sha256 !== entry.sha256) return { id, blobKey, found: 'digest', size: read, sha256 };
  return undefined;
}

/**
 * Where each item sits in an ANS-104 bundle's data: a header of 32 bytes (item count) plus 64 bytes
 * per item (size, id), then the raw items back to back in header order. Offsets are fixed when a
 * bundle is planned and published as `startOffsetInRootBundle`, so they are computed in one place.
 */

/** 32 bytes of item count, then 32 bytes of size and 32 bytes of id per item */
export const bundleHeaderSize = (itemCount: number): number => 32 + 64 * itemCount;

export interface BundleEntry {
  /** the item's id: base64url of 32 bytes */
  id: string;
  /** the raw (signed) item's length in bytes */
  size: number;
}

export type PlacedEntry<T extends BundleEntry> = T & {
  /** where the raw item starts in the bundle's data */
  offset: number;
};

export interface BundleLayout<T extends BundleEntry = BundleEntry> {
  headerSize: number;
  totalSize: number;
  /** in bundle order; every other field of the input entries is kept (a blob key, for example) */
  items: readonly PlacedEntry<T>[];
}

export function bundleLayout<T extends BundleEntry>(entries: readonly T[]): BundleLayout<T> {
  const headerSize = bundleHeaderSize(entries.length);
  const seen = new Set<string>();
  let offset = headerSize;
  const items = entries.map((entry) => {
    assertEntry(entry);
    // Readers index a bundle by id: a second copy would shadow the first and leave bytes nobody finds.
    if (seen.has(entry.id)) throw new RangeError(`item ${entry.id} is twice in the bundle`);
    seen.add(entry.id);
    const placed = { ...entry, offset };
    offset += entry.size;
    return placed;
  });
  if (!Number.isSafeInteger(offset)) throw new RangeError(`bundle of ${offset} bytes is too large`);
  return { headerSize, totalSize: offset, items };
}

const ID = /^[A-Za-z0-9_-]{43}$/;

/** a base64url id whose 32 bytes re-encode to the same text (so header bytes and id agree) */
export function isItemId(id: string): boolean {
  return ID.test(id) && Buffer.from(id, 'base64url').toString('base64url') === id;
}

function assertEntry({ id, size }: BundleEntry): void {
  if (!isItemId(id)) throw new RangeError(`item id ${JSON.stringify(id)} is not base64url of 32 bytes`);
  // a data item is never empty (it has at least a signature type and a signature)
  if (!Number.isSafeInteger(size) || size <= 0) throw new RangeError(`item ${id} has size ${size}`);
}

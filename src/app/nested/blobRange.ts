import type { BlobStore } from '../../ports/blobStore.js';

/** `length` bytes of a blob from `start`, in memory: only for headers, never for payloads. */
export async function readRange(blobStore: BlobStore, key: string, start: number, length: number): Promise<Buffer> {
  if (length === 0) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  let read = 0;
  for await (const chunk of await blobStore.read(key, { start, end: start + length - 1 })) {
    parts.push(chunk as Buffer);
    read += (chunk as Buffer).length;
  }
  // the item's sizes were verified at acceptance: a short blob is damage, not a malformed bundle
  if (read !== length) throw new Error(`blob ${key} has ${read} bytes at ${start}, ${length} expected`);
  return Buffer.concat(parts, length);
}

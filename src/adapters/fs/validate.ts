import { isValidBlobKey, type ByteRange } from '../../ports/blobStore.js';

/**
 * Keys are made by the service (never copied from a request), so a bad one is a bug in the caller:
 * a TypeError, not a domain error. Checking before any path is built is what keeps every file
 * operation inside the store's root.
 */
export function assertBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw new TypeError(`invalid blob key: ${JSON.stringify(key)}`);
}

/** Inclusive on both ends, like an HTTP Range header; an empty blob has no valid range. */
export function assertRangeWithin(range: ByteRange, size: number): void {
  const { start, end } = range;
  const valid = Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start <= end && end < size;
  if (!valid) throw new RangeError(`byte range ${start}-${end} is outside a blob of ${size} bytes`);
}

import { BlobStoreUnavailable } from '../../ports/blobStore.js';
import { errnoCode } from './errno.js';

/**
 * errno codes that say the disk cannot take bytes now (full, over quota, mounted read-only, failing),
 * not that the caller or the store erred: the operation may succeed once an operator acts.
 */
const DISK_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/** A disk fault becomes the port's BlobStoreUnavailable (503 over HTTP); anything else is kept. */
export function diskFault(error: unknown): unknown {
  const code = errnoCode(error);
  if (code === undefined || !DISK_FAULTS.has(code)) return error;
  return new BlobStoreUnavailable(`the blob store's disk refused the operation (${code})`, { cause: error });
}

export async function disk<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw diskFault(error);
  }
}

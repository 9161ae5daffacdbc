import { MongoClientClosedError, MongoError, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { BlobStoreUnavailable } from '../../ports/blobStore.js';
import { ReadStoreUnavailable } from '../../ports/readStore.js';

/** E11000: an insert (or the insert half of an upsert) met an existing `_id` or unique key. */
export const DUPLICATE_KEY = 11000;

export const isDuplicateKey = (error: unknown): boolean => error instanceof MongoError && error.code === DUPLICATE_KEY;

/**
 * Server codes that mean "not now" (no primary, stepping down, shutting down, network trouble seen by
 * the server; 14031 OutOfDiskSpace, the server's disk is full): the same write may succeed later.
 */
const notNowCodes = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 14031]);

/** True for failures a caller may retry later: the deployment cannot be reached, has no primary or no disk space now. */
export function isUnavailable(error: unknown): boolean {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoClientClosedError
  ) {
    return true;
  }
  if (!(error instanceof MongoError)) return false;
  if (typeof error.code === 'number' && notNowCodes.has(error.code)) return true;
  return error.hasErrorLabel('RetryableWriteError');
}

/** Runs a read store operation; connection trouble becomes the port's ReadStoreUnavailable (an HTTP 503). */
export async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isUnavailable(error)) {
      throw new ReadStoreUnavailable(`MongoDB read store unavailable: ${messageOf(error)}`, { cause: error });
    }
    throw error;
  }
}

/** A failure of the GridFS blob store's deployment becomes the port's BlobStoreUnavailable (an HTTP 503). */
export const asBlobStoreUnavailable = (error: unknown): unknown =>
  isUnavailable(error) ? new BlobStoreUnavailable(`GridFS blob store unavailable: ${messageOf(error)}`, { cause: error }) : error;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Failures of the bytes behind a bundle. They are not HTTP errors (no client ever sees a bundle):
 * the bundler logs them and drops or re-plans the bundle, so they carry what it needs to decide.
 */

/** A blob's length differs from the size fixed when the bundle was planned: the layout is wrong for it. */
export class BundleBlobMismatch extends Error {
  override readonly name = 'BundleBlobMismatch';
  readonly code = 'BUNDLE_BLOB_MISMATCH';
  constructor(
    readonly blobKey: string,
    readonly expectedSize: number,
    /** bytes read; when longer than expected, reading stopped there, so the blob holds at least these */
    readonly bytesRead: number,
  ) {
    const held = bytesRead > expectedSize ? `at least ${bytesRead}` : String(bytesRead);
    super(`blob ${blobKey} holds ${held} bytes, the bundle expects ${expectedSize}`);
  }
}

/** A chunk read back for posting does not hash to what the data root was computed from. */
export class BundleChunkMismatch extends Error {
  override readonly name = 'BundleChunkMismatch';
  readonly code = 'BUNDLE_CHUNK_MISMATCH';
  constructor(readonly chunkIndex: number) {
    super(`chunk ${chunkIndex} of the bundle no longer matches its data root: a blob changed since preparation`);
  }
}

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

/** What an item's blob was found to hold when it is not what the item was accepted with. */
export interface ItemDamage {
  id: string;
  blobKey: string;
  found: 'missing' | 'short' | 'long' | 'digest';
  /** bytes found (at least this many when `long`) */
  size?: number;
  /** hex sha256 of the bytes found, when they were read whole */
  sha256?: string;
}

/** Items of the bundle whose blobs are not the bytes they were accepted with: the bundle cannot be made of them. */
export class BundleItemsDamaged extends Error {
  override readonly name = 'BundleItemsDamaged';
  readonly code = 'BUNDLE_ITEMS_DAMAGED';
  constructor(readonly damaged: readonly ItemDamage[]) {
    super(`${damaged.length} item${damaged.length === 1 ? '' : 's'} of the bundle damaged: ${damaged.map((d) => `${d.id} (${d.found})`).join(', ')}`);
  }
}

/** The blobs, all of the sizes and digests they were accepted with, give another data root than the bundle was signed with. */
export class BundleDataRootChanged extends Error {
  override readonly name = 'BundleDataRootChanged';
  readonly code = 'BUNDLE_DATA_ROOT_CHANGED';
  constructor(
    readonly signed: string,
    readonly computed: string,
  ) {
    super(`its blobs, all as accepted, give data root ${computed}, not the ${signed} it was signed with`);
  }
}

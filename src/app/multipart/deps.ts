import type { BlobStore } from '../../ports/blobStore.js';
import type { Pricing } from '../../ports/pricing.js';
import type { AccountRepository } from '../accounts/accounts.js';
import type { UploadRepository } from '../uploads.js';
import type { AcceptDeps } from '../acceptance/acceptDataItem.js';
import type { OwnerLookup } from './uploadOwner.js';
import type { UploadTally } from './uploadTally.js';
import type { DiskSpace } from '../../adapters/fs/diskSpace.js';
import type { BlockCheck } from '../blocklist.js';
import type { BlobHasher } from '../../crypto/blobHasher.js';
import type { PrefixVerifier } from './prefixVerifier.js';

/** What one client may hold in multi-part uploads (docs/configuration.md). */
export interface MultipartLimits {
  /** chunks recorded per upload */
  maxChunks: number;
  /** uploads created and not yet at an end, per client; 0: no limit */
  maxOpenUploadsPerClient: number;
  /** what an upload with no known owner (no header chunk yet) may hold without counting against its client's allowance */
  freeUploadLimitBytes: number;
  /** bytes past the free limit a client may hold in uploads with no header chunk yet */
  headerlessBytesPerClient: number;
}

export interface MultipartDeps {
  uploads: UploadRepository;
  blobStore: BlobStore;
  pricing: Pricing;
  accounts: AccountRepository;
  accept: AcceptDeps;
  maxDataItemSize: number;
  /** STRICT_TAGS: the ANS-104 text's tag limits at finalize (src/verify/tags.ts) */
  strictTags?: boolean;
  /** the operator's block list: a chunk or finalize of a blocked owner or payer is refused (403) */
  blocklist?: BlockCheck;
  limits: MultipartLimits;
  ownerOf: OwnerLookup;
  /** what every client holds in uploads not at an end (absent: nothing is counted, no per-client limit applies) */
  tally?: UploadTally;
  /** the free-disk floor: creation refused below it, and an assembled item's copy must fit above it */
  disk?: DiskSpace;
  /** single-process mode: resolves once the read models reflect `position` (bounded wait) */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  now: () => number;
  /** seconds reading and verifying an assembled upload took (metrics) */
  observeVerify?: (seconds: number) => void;
  /** the digests of assembled items off the request's thread (src/crypto/blobHasher.ts); absent: inline */
  hasher?: BlobHasher;
  /** verifies chunks as they come in, for the finalize (stores that compose); absent: finalize reads every chunk */
  prefix?: PrefixVerifier;
  /** seconds a finalize took to finish a verification done as the chunks came in (metrics) */
  observePrefix?: (seconds: number) => void;
}

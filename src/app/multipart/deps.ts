import type { BlobStore } from '../../ports/blobStore.js';
import type { Pricing } from '../../ports/pricing.js';
import type { AccountRepository } from '../accounts.js';
import type { UploadRepository } from '../uploads.js';
import type { AcceptDeps } from '../acceptDataItem.js';
import type { OwnerLookup } from './uploadOwner.js';

export interface MultipartDeps {
  uploads: UploadRepository;
  blobStore: BlobStore;
  pricing: Pricing;
  accounts: AccountRepository;
  accept: AcceptDeps;
  maxDataItemSize: number;
  ownerOf: OwnerLookup;
  /** single-process mode: resolves once the read models reflect `position` (bounded wait) */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  now?: () => number;
  /** seconds reading and verifying an assembled upload took (metrics) */
  observeVerify?: (seconds: number) => void;
}

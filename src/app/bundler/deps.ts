import type { BlobStore } from '../../ports/blobStore.js';
import type { ArweaveGateway } from '../../ports/gateway.js';
import type { EventStore } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { PackingLimits } from '../../domain/bundle/packing.js';
import type { RsaPrivateJwk } from '../../wallet/rsaJwk.js';
import type { WalletFunds } from './funds.js';
import type { Bundles, LeaseFence } from './fence.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';

export interface BundlerSettings {
  limits: PackingLimits;
  /** confirmations after which a bundle is permanent (default 18) */
  confirmations: number;
  /** a bundle not seen this many blocks after its anchor is dropped (default 50) */
  dropAfterBlocks: number;
  /** an item in this many dropped bundles fails (default 10) */
  maxAttempts: number;
  /** chunks of a bundle posted at once (BUNDLE_CHUNK_CONCURRENCY) */
  chunkConcurrency: number;
}

export interface BundlerDeps {
  eventStore: EventStore;
  /** the process's one data-item repository (src/wiring/shared.ts): failed and damaged items are recorded through it */
  items: DataItemRepository;
  readStore: ReadStore;
  blobStore: BlobStore;
  gateway: ArweaveGateway;
  jwk: RsaPrivateJwk;
  bundles: Bundles;
  settings: BundlerSettings;
  /**
   * the service wallet's balance: a bundle whose reward it does not cover waits, planned (absent:
   * every bundle is signed and posted, and the gateway judges)
   */
  funds?: Pick<WalletFunds, 'canPay' | 'refused' | 'settled' | 'retain' | 'address'>;
  /** takes or renews the bundler's lease; false: another instance is the active one (absent: always active) */
  holdLease?: () => Promise<boolean>;
  /** with `holdLease`: the fencing token of this instance, so one that lost its lease cannot append (fence.ts) */
  fence?: LeaseFence;
  /**
   * single-process mode: resolves once the read models reflect `position`, or with `false` when it
   * gave up waiting (bounded): the planner then skips the pass rather than plan from a stale queue
   */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  /** the wall clock, for the events' times */
  now: () => number;
  /** the clock of the retry backoff (default performance.now): monotonic, so a wall clock set back holds no retry (src/clock.ts) */
  monotonic?: () => number;
  log?: (message: string, error?: unknown) => void;
}

export { BUNDLER } from './metadata.js';

import type { BlobStore } from '../../ports/blobStore.js';
import type { EventStore } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { PackingLimits } from '../../domain/bundle/packing.js';
import type { RsaPrivateJwk } from '../../wallet/rsaJwk.js';
import type { BundleRepository } from '../bundles.js';

/** What the bundler asks of the Arweave gateway (the HTTP adapter is in src/adapters/gateway). */
export interface BundleGateway {
  /** winston for `bytes` of data */
  price(bytes: number): Promise<bigint>;
  /** a recent block hash or transaction id for `last_tx` */
  anchor(): Promise<string>;
  currentHeight(): Promise<number>;
  /** idempotent: the same transaction posted again succeeds */
  postTransaction(tx: object): Promise<void>;
  postChunk(chunk: object): Promise<void>;
  transactionStatus(
    id: string,
  ): Promise<{ status: 'pending' } | { status: 'not_found' } | { status: 'confirmed'; blockHeight: number; confirmations: number }>;
}

export interface BundlerSettings {
  limits: PackingLimits;
  /** confirmations after which a bundle is permanent (default 18) */
  confirmations: number;
  /** a bundle not seen this many blocks after its anchor is dropped (default 50) */
  dropAfterBlocks: number;
  /** an item in this many dropped bundles fails (default 10) */
  maxAttempts: number;
}

export interface BundlerDeps {
  eventStore: EventStore;
  readStore: ReadStore;
  blobStore: BlobStore;
  gateway: BundleGateway;
  jwk: RsaPrivateJwk;
  bundles: BundleRepository;
  settings: BundlerSettings;
  /** single-process mode: resolves once the read models reflect `position` */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  now?: () => number;
  log?: (message: string, error?: unknown) => void;
}

export const BUNDLER = { correlationId: 'bundler' } as const;

import { warningsTo } from '../log.js';
import type { EventStore } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import type { BlobStore } from '../ports/blobStore.js';
import { openEventStoreFromConfig } from '../adapters/eventStoreFromConfig.js';
import { openBlobStoreFromConfig, openReadStoreFromConfig } from '../adapters/storesFromConfig.js';
import { loadOrCreateWallet } from '../wallet/loadOrCreateWallet.js';
import { refuseReadModelsAhead } from '../../projections/aheadOfEvents.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Clocks } from '../clock.js';
import type { BlobHasher } from '../crypto/blobHasher.js';
import type { Wiring } from './context.js';
import { createLeases, type Leases } from './leases.js';

/** Stores the caller opened itself (tests that make a disk fill or fail); the service closes them at stop. And its clocks, for tests. */
export interface ServiceStores {
  eventStore?: EventStore;
  readStore?: ReadStore;
  blobStore?: BlobStore;
  /** uploads' SHA-256 hasher (tests that stall or kill its workers); the service closes it at stop */
  hasher?: BlobHasher;
  /** the clocks in place of the system's (tests that step the wall clock or advance the monotonic one) */
  clocks?: Partial<Clocks>;
}

export interface Stores {
  eventStore: EventStore;
  readStore: ReadStore;
  blobStore: BlobStore;
  wallet: Awaited<ReturnType<typeof loadOrCreateWallet>>;
  leases: Leases;
}

/**
 * The stores every role reads and writes (but those the caller gave, which the service closes too),
 * the service wallet, and the leases, handed back at stop once every part that holds one has stopped.
 */
export async function openStores(life: Lifecycle, { config, log, now, instanceId, signing }: Wiring, given: ServiceStores): Promise<Stores> {
  const close = (store: { close(): Promise<void> }) => store.close();
  const eventStore = await life.open('event store', async () => given.eventStore ?? (await openEventStoreFromConfig(config, () => signing.count())), close);
  // READ_STORE / BLOB_STORE: the MongoDB driver is loaded only when one of them is MongoDB
  const readStore = await life.open('read store', async () => given.readStore ?? (await openReadStoreFromConfig(config, { log: warningsTo(log) })), close);
  const blobStore = await life.open('blob store', async () => given.blobStore ?? (await openBlobStoreFromConfig(config, { log: warningsTo(log) })), close);
  // every role reads read models: none serves or appends on ones built from events this store lacks
  await refuseReadModelsAhead(eventStore, readStore);
  const wallet = await loadOrCreateWallet({ walletFile: config.walletFile, dataDir: config.dataDir });
  const leases = createLeases(readStore, instanceId, config, now);
  await life.start({ name: 'leases', stop: () => leases.handBack((message, fields) => log.warn(message, fields)) });
  return { eventStore, readStore, blobStore, wallet, leases };
}

import { existsSync } from 'node:fs';
import { openReadStoreFromConfig } from '../../src/adapters/storesFromConfig.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { withExistingEventStore } from './operatorStore.js';
import { StoreNotFound } from './storeNotFound.js';

/**
 * Opens the configured event store and read store, the ones the running service uses, for a tool
 * that writes read models (the rebuild), through withExistingEventStore like every writing tool. A
 * data directory that does not exist is reported rather than filled with empty stores (a mistyped
 * DATA_DIR).
 */
export function withRebuildStores<T>(run: (stores: { eventStore: EventStore; readStore: ReadStore }) => Promise<T>): Promise<T> {
  return withExistingEventStore(async (eventStore, config) => {
    if (config.readStore === 'sqlite' && !existsSync(config.dataDir)) throw new StoreNotFound(`no data directory at ${config.dataDir} (is DATA_DIR right?)`);
    // the configured read store: SQLite under DATA_DIR, or MongoDB (its adapter promotes the same way)
    const readStore = await openReadStoreFromConfig(config);
    try {
      return await run({ eventStore, readStore });
    } finally {
      await readStore.close();
    }
  });
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/config.js';
import { openEventStoreFromConfig } from '../../src/adapters/eventStoreFromConfig.js';
import { openReadStoreFromConfig } from '../../src/adapters/storesFromConfig.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { StoreNotFound } from './auditorStores.js';

/**
 * Opens the configured event store and read store, the ones the running service uses, for a tool
 * that writes read models (the rebuild). A data directory that does
 * not exist is reported rather than filled with empty stores (a mistyped DATA_DIR).
 */
export async function withRebuildStores<T>(run: (stores: { eventStore: EventStore; readStore: ReadStore }) => Promise<T>): Promise<T> {
  const config = parseConfig();
  if (config.readStore === 'sqlite' && !existsSync(config.dataDir)) throw new StoreNotFound(`no data directory at ${config.dataDir} (is DATA_DIR right?)`);
  const eventsFile = join(config.dataDir, 'events.db');
  if (config.eventStore === 'sqlite' && !existsSync(eventsFile)) throw new StoreNotFound(`no event store at ${eventsFile} (is DATA_DIR right?)`);
  const eventStore = await openEventStoreFromConfig(config);
  try {
    // the configured read store: SQLite under DATA_DIR, or MongoDB (its adapter promotes the same way)
    const readStore = await openReadStoreFromConfig(config);
    try {
      return await run({ eventStore, readStore });
    } finally {
      await readStore.close();
    }
  } finally {
    await eventStore.close();
  }
}

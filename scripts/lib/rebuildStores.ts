import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseConfig } from '../../src/config.js';
import { openEventStoreFromConfig } from '../../src/adapters/eventStoreFromConfig.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { StoreNotFound } from './auditorStores.js';

/**
 * Opens the configured event store and the SQLite read store at `<DATA_DIR>/read.db`, the files the
 * running service uses, for a tool that writes read models (the rebuild). A data directory that does
 * not exist is reported rather than filled with empty stores (a mistyped DATA_DIR).
 */
export async function withRebuildStores<T>(run: (stores: { eventStore: EventStore; readStore: ReadStore }) => Promise<T>): Promise<T> {
  const config = parseConfig();
  // the MongoDB read store gets the rebuild once its adapter promotes; rebuilding SQLite instead would do nothing useful
  if (config.readStore !== 'sqlite') throw new ConfigError(`READ_STORE=${config.readStore}: npm run rebuild rebuilds the SQLite read store only`);
  if (!existsSync(config.dataDir)) throw new StoreNotFound(`no data directory at ${config.dataDir} (is DATA_DIR right?)`);
  const eventsFile = join(config.dataDir, 'events.db');
  if (config.eventStore === 'sqlite' && !existsSync(eventsFile)) throw new StoreNotFound(`no event store at ${eventsFile} (is DATA_DIR right?)`);
  const eventStore = await openEventStoreFromConfig(config);
  try {
    const readStore = openSqliteReadStore({ path: join(config.dataDir, 'read.db') });
    try {
      return await run({ eventStore, readStore });
    } finally {
      await readStore.close();
    }
  } finally {
    await eventStore.close();
  }
}

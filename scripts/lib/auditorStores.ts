import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, type Config } from '../../src/config.js';
import { openEventStoreFromConfig } from '../../src/adapters/eventStoreFromConfig.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { refuseMissingEventStore, StoreNotFound } from './storeNotFound.js';

export interface AuditorStores {
  config: Config;
  eventStore: EventStore;
  /** `<DATA_DIR>/read.db`; undefined when it does not exist and was not required */
  readStore: ReadStore | undefined;
  /** `<DATA_DIR>/blobs`, when asked for */
  blobStore: BlobStore | undefined;
}

export interface AuditorNeeds {
  readStore: 'required' | 'optional';
  blobStore: boolean;
}

/**
 * Opens the stores the service is configured with (same environment variables, same files) for the
 * auditors' tools, which only read: nothing is created where the configuration points at nothing
 * (a mistyped DATA_DIR is reported, not filled with empty stores). Safe while the service runs.
 */
export async function withAuditorStores<T>(needs: AuditorNeeds, run: (stores: AuditorStores) => Promise<T>): Promise<T> {
  const config = parseConfig();
  refuseMissingEventStore(config);
  const readFile = join(config.dataDir, 'read.db');
  if (needs.readStore === 'required' && !existsSync(readFile)) throw new StoreNotFound(`no read store at ${readFile} (is DATA_DIR right?)`);

  const eventStore = await openEventStoreFromConfig(config);
  let readStore: ReadStore | undefined;
  let blobStore: BlobStore | undefined;
  try {
    readStore = existsSync(readFile) ? openSqliteReadStore({ path: readFile }) : undefined;
    // never sweep: the temp files belong to the service's writers, and this process only reads
    blobStore = needs.blobStore ? await openFsBlobStore({ root: join(config.dataDir, 'blobs'), staleTempAfterMs: Number.POSITIVE_INFINITY }) : undefined;
    return await run({ config, eventStore, readStore, blobStore });
  } finally {
    await blobStore?.close();
    await readStore?.close();
    await eventStore.close();
  }
}

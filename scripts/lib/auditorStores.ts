import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, type Config } from '../../src/config.js';
import { openEventStoreFromConfig } from '../../src/adapters/eventStoreFromConfig.js';
import { openBlobStoreFromConfig, openReadStoreFromConfig } from '../../src/adapters/storesFromConfig.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { refuseMissingEventStore, StoreNotFound } from './storeNotFound.js';

export interface AuditorStores {
  config: Config;
  eventStore: EventStore;
  /** the configured read store (SQLite: `<DATA_DIR>/read.db`; undefined when that file does not exist and was not required) */
  readStore: ReadStore | undefined;
  /** the configured blob store (`<DATA_DIR>/blobs`, or GridFS), when asked for */
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
 * MongoDB and GridFS (READ_STORE=mongo, BLOB_STORE=gridfs) are opened from the configuration too:
 * the scale-out profile is audited as the embedded one.
 */
export async function withAuditorStores<T>(needs: AuditorNeeds, run: (stores: AuditorStores) => Promise<T>): Promise<T> {
  const config = parseConfig();
  refuseMissingEventStore(config);
  const readFile = join(config.dataDir, 'read.db');
  const embeddedReadStore = config.readStore === 'sqlite';
  if (embeddedReadStore && needs.readStore === 'required' && !existsSync(readFile))
    throw new StoreNotFound(`no read store at ${readFile} (is DATA_DIR right?)`);

  const eventStore = await openEventStoreFromConfig(config);
  let readStore: ReadStore | undefined;
  let blobStore: BlobStore | undefined;
  try {
    readStore = !embeddedReadStore || existsSync(readFile) ? await openReadStoreFromConfig(config) : undefined;
    // never sweep: the temp files belong to the service's writers, and this process only reads
    blobStore = needs.blobStore ? await openBlobStoreFromConfig(config, { staleTempAfterMs: Number.POSITIVE_INFINITY }) : undefined;
    return await run({ config, eventStore, readStore, blobStore });
  } finally {
    await blobStore?.close();
    await readStore?.close();
    await eventStore.close();
  }
}

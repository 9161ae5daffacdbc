import { join } from 'node:path';
import type { MongoClient } from 'mongodb';
import type { BlobStore } from '../ports/blobStore.js';
import type { ReadStore } from '../ports/readStore.js';
import { openTieredBlobStore } from './fs/tieredBlobStore.js';
import { openSqliteReadStore } from './sqlite/readStore.js';
import { bestEffort } from '../bestEffort.js';

/** What picking the read and blob stores needs: a plain object, so it works with any config shape. */
export interface StoresConfig {
  readStore: 'sqlite' | 'mongo';
  blobStore: 'fs' | 'gridfs';
  /** fs: blobs of at most this many bytes are rows of one SQLite file (default 65,536; 0: none new) */
  smallBlobMaxBytes?: number;
  mongoUrl?: string | undefined;
  mongoDatabase?: string | undefined;
  dataDir: string;
}

export const DEFAULT_MONGO_DATABASE = 'upload_service';
export const DEFAULT_SMALL_BLOB_MAX_BYTES = 65_536;

/**
 * The configured read store, opened the same way by the service and the operator CLIs (SQLite:
 * `<DATA_DIR>/read.db`; MongoDB: a replica set, since its commits are transactions). The MongoDB
 * driver and adapters are loaded only when configured, so the embedded default never loads them.
 * A MongoDB store gets a client of its own, and closes it when it closes.
 */
export async function openReadStoreFromConfig(
  config: StoresConfig,
  /** SQLite: a failure of its checkpoint thread, as a warning */
  { log }: { log?: (message: string, error?: unknown) => void } = {},
): Promise<ReadStore> {
  if (config.readStore === 'mongo') {
    const { openMongoReadStore } = await import('./mongo/readStore.js');
    return withClient(config, 'READ_STORE=mongo', (client, database) => openMongoReadStore({ client, database, ownsClient: true }));
  }
  return openSqliteReadStore({ path: join(config.dataDir, 'read.db'), ...(log && { log }) });
}

export interface BlobStoreOpenOptions {
  /** housekeeping failures (GridFS: files left behind), as warnings */
  log?: (message: string, error?: unknown) => void;
  /** leftovers of crashed writes older than this are removed at open; Infinity removes none (read-only tools) */
  staleTempAfterMs?: number;
}

/** The configured blob store (fs: `<DATA_DIR>/blobs`, small blobs as rows of `.small-blobs.db` in it; GridFS: bucket `blobs` in the MongoDB database). */
export async function openBlobStoreFromConfig(config: StoresConfig, options: BlobStoreOpenOptions = {}): Promise<BlobStore> {
  if (config.blobStore === 'gridfs') {
    const { openGridFsBlobStore } = await import('./mongo/gridfsBlobStore.js');
    return withClient(config, 'BLOB_STORE=gridfs', (client, database) => openGridFsBlobStore({ client, database, ownsClient: true, ...options }));
  }
  // tiered whatever the limit: rows written before (or by another process) are read as blobs
  return openTieredBlobStore({
    root: join(config.dataDir, 'blobs'),
    smallBlobMaxBytes: config.smallBlobMaxBytes ?? DEFAULT_SMALL_BLOB_MAX_BYTES,
    ...(options.staleTempAfterMs !== undefined ? { staleTempAfterMs: options.staleTempAfterMs } : {}),
  });
}

/** A new client for one store; closed again when the store fails to open. */
async function withClient<T>(config: StoresConfig, setting: string, open: (client: MongoClient, database: string) => Promise<T>): Promise<T> {
  if (!config.mongoUrl) throw new Error(`MONGO_URL is required when ${setting}`);
  const { MongoClient } = await import('mongodb');
  // the driver connects on first use, not here
  const client = new MongoClient(config.mongoUrl, { appName: 'permaweb-upload-service' });
  try {
    return await open(client, config.mongoDatabase ?? DEFAULT_MONGO_DATABASE);
  } catch (error) {
    await bestEffort(client.close(), 'the open failure is the one reported');
    throw error;
  }
}

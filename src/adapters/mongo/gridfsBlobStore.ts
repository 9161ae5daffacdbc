import type { MongoClient, WriteConcernSettings } from 'mongodb';
import type { BlobStore } from '../../ports/blobStore.js';
import { openGridFsBackend } from './gridfsBackend.js';
import { guardedBlobBackend } from './guardedBlobBackend.js';
import { LayeredBlobStore } from '../layered/layeredBlobStore.js';

export interface GridFsBlobStoreOptions {
  client: MongoClient;
  database: string;
  /** collections `<bucketName>.files`, `.chunks` and `.keys`; default `blobs` */
  bucketName?: string;
  /**
   * Whether `close()` closes the client. Default false: a client passed in belongs to the caller
   * (who may share it with the read store); the composition root passes true for one made for this store.
   */
  ownsClient?: boolean;
  /**
   * Default: acknowledged by a majority and journaled, because the port promises durable bytes once a
   * write resolves (a standalone server journals and acknowledges alone).
   */
  writeConcern?: WriteConcernSettings;
  /** GridFS chunk size, which also bounds what a write buffers; default 255 KiB */
  chunkSizeBytes?: number;
  /**
   * Temporary files older than this are swept at open (see `LayeredBlobStore.sweep`); default one
   * hour. Infinity sweeps nothing (a reader such as the auditor, which must change nothing).
   */
  staleTempAfterMs?: number;
  /** housekeeping failures (files left behind), as warnings */
  log?: (message: string, error?: unknown) => void;
}

/** a collection name prefix MongoDB accepts and that cannot hide another bucket's collections */
const BUCKET_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The scale-out blob store: bytes in a GridFS bucket shared by every API replica. See
 * `../layered/layeredBlobStore.ts` for how immutable GridFS files carry blobs written at offsets, truncated and
 * moved, and `gridfsBackend.ts` for the collections; a deployment that cannot be reached or is out of
 * disk answers BlobStoreUnavailable. Creates its indexes and sweeps what a crashed
 * commit left before it answers; nothing connects before this is called.
 */
export async function openGridFsBlobStore(options: GridFsBlobStoreOptions): Promise<BlobStore> {
  const bucketName = options.bucketName ?? 'blobs';
  if (!BUCKET_NAME.test(bucketName)) throw new TypeError(`invalid GridFS bucket name: ${JSON.stringify(bucketName)}`);
  const backend = await openGridFsBackend({
    client: options.client,
    db: options.client.db(options.database),
    bucketName,
    ownsClient: options.ownsClient ?? false,
    writeConcern: options.writeConcern ?? { w: 'majority', journal: true },
    ...(options.chunkSizeBytes !== undefined ? { chunkSizeBytes: options.chunkSizeBytes } : {}),
  });
  const store = new LayeredBlobStore(guardedBlobBackend(backend), options.log);
  const staleAfterMs = options.staleTempAfterMs ?? 60 * 60 * 1000;
  if (Number.isFinite(staleAfterMs)) await store.sweep(staleAfterMs);
  return store;
}

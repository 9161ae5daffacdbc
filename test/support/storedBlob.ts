import { existsSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { openTieredBlobStore, SMALL_BLOB_FILE } from '../../src/adapters/fs/tieredBlobStore.js';
import { BlobNotFound } from '../../src/ports/blobStore.js';

/**
 * The bytes the embedded blob store of a service's data directory holds under `key` (`items/<id>`),
 * read through a store of its own: a small blob is a row of `blobs/.small-blobs.db`, a larger one a
 * file, a multi-part item a composed blob (a directory rather than a file, src/adapters/fs/composed.ts).
 * Undefined when there is no such blob.
 */
export async function storedBlob(dataDir: string, key: string): Promise<Buffer | undefined> {
  // sweeps none of the running service's temp files, writes nothing
  const store = await openTieredBlobStore({ root: join(dataDir, 'blobs'), staleTempAfterMs: Number.MAX_SAFE_INTEGER, smallBlobMaxBytes: 0 });
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (error) {
    if (BlobNotFound.is(error)) return undefined;
    throw error;
  } finally {
    await store.close();
  }
}

/** runs `work` on the small-blob file of a data directory (none: nothing is run, undefined answered) */
function withSmallBlobFile<T>(dataDir: string, work: (db: Sqlite.Database) => T, readonly = true): T | undefined {
  const path = join(dataDir, 'blobs', SMALL_BLOB_FILE);
  if (!existsSync(path)) return undefined;
  const db = new Sqlite(path, { readonly, timeout: 5000 });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** the keys of the small blobs (rows) of a data directory, sorted */
export function smallBlobKeys(dataDir: string): string[] {
  return withSmallBlobFile(dataDir, (db) => db.prepare('SELECT key FROM small_blobs ORDER BY key').pluck().all() as string[]) ?? [];
}

/** the bytes of the row `key`, read straight from the file; undefined when it has none */
const rowBytes = (dataDir: string, key: string) =>
  withSmallBlobFile(dataDir, (db) => db.prepare('SELECT bytes FROM small_blobs WHERE key = ?').pluck().get(key) as Buffer | undefined);

/**
 * Changes the bytes stored under `key` behind the service's back (a disk that rots, someone with a
 * shell): the row's bytes when it is a small blob, the file's otherwise. Answers the bytes before.
 */
export async function damageStoredBlob(dataDir: string, key: string, change: (bytes: Buffer) => Buffer): Promise<Buffer> {
  const row = rowBytes(dataDir, key);
  if (row !== undefined) {
    withSmallBlobFile(dataDir, (db) => db.prepare('UPDATE small_blobs SET bytes = ? WHERE key = ?').run(change(Buffer.from(row)), key), false);
    return row;
  }
  const path = join(dataDir, 'blobs', key);
  const bytes = await readFile(path);
  await writeFile(path, change(Buffer.from(bytes)));
  return bytes;
}

/** Removes what is stored under `key` behind the service's back: its row, or its file. */
export async function loseStoredBlob(dataDir: string, key: string): Promise<void> {
  const deleted = withSmallBlobFile(dataDir, (db) => db.prepare('DELETE FROM small_blobs WHERE key = ?').run(key).changes, false);
  if (deleted !== 1) await unlink(join(dataDir, 'blobs', key));
}

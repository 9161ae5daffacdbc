import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { fsyncFile } from './durableFiles.js';

/** every page in one step: sqlite3_backup_step's largest count (better-sqlite3 clamps the progress answer to it) */
const ALL_PAGES = 0x7fffffff;

/**
 * A consistent copy of the SQLite database at `source` in the new file `dest`, taken while other
 * processes write it: SQLite's online backup API, every page in ONE step, so the copy is one read
 * transaction's snapshot. Stepping a few pages at a time would restart the copy whenever the
 * service commits between two steps (it commits many times a second), and might never finish. In
 * WAL mode (every store of the service) a reader blocks no writer, so the service goes on meanwhile.
 * The copy is fsynced before this resolves. Undefined when there is no such database.
 */
export async function copySqlite(source: string, dest: string): Promise<{ pages: number } | undefined> {
  if (!existsSync(source)) return undefined;
  const db = new Database(source, { readonly: true, fileMustExist: true, timeout: 30_000 });
  try {
    const { totalPages } = await db.backup(dest, { progress: () => ALL_PAGES });
    singleFile(dest);
    await fsyncFile(dest);
    return { pages: totalPages };
  } finally {
    db.close();
  }
}

/**
 * The copy in rollback-journal mode: one file, which a read-only open (the head, the manifest's
 * digests) leaves without a `-wal` or `-shm` beside it. The stores turn WAL on again when they open it.
 */
function singleFile(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/**
 * Adds to the copy `dest` of a small-blob file (smallBlobTable.ts) the rows `source` has now and the
 * copy lacks; rows already copied stay as they were. Additive, never a fresh snapshot: an upload's
 * chunk rows deleted since the first copy (its end recorded after it) must stay in the backup if the
 * backed-up event store still has the upload open.
 */
export async function addNewSmallBlobRows(source: string, dest: string): Promise<number> {
  if (!existsSync(source) || !existsSync(dest)) return 0;
  const db = new Database(dest, { fileMustExist: true, timeout: 30_000 });
  try {
    db.prepare('ATTACH DATABASE ? AS live').run(source);
    const added = db.transaction(() => {
      const { changes } = db
        .prepare('INSERT OR IGNORE INTO main.small_blobs (key, gen, modified_at, bytes) SELECT key, gen, modified_at, bytes FROM live.small_blobs')
        .run();
      // a generation handed out later must stay above every copied row's
      db.prepare('UPDATE main.small_blob_gen SET gen = max(gen, (SELECT coalesce(max(gen), 0) FROM live.small_blob_gen))').run();
      return changes;
    })();
    db.prepare('DETACH DATABASE live').run();
    // the backup is one file: no -wal or -shm beside it
    db.pragma('journal_mode = DELETE');
    return added;
  } finally {
    db.close();
    await fsyncFile(dest);
  }
}

/** The event store's head position in the SQLite file at `file` (0: no event). */
export function sqliteEventStoreHead(file: string): bigint {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT coalesce(max(position), 0) FROM events').pluck().safeIntegers(true).get() as bigint;
  } finally {
    db.close();
  }
}

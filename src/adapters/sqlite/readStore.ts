import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import {
  CheckpointConflict,
  ReadStoreUnavailable,
  type CheckpointWrite,
  type DocumentWrite,
  type KeyPage,
  type ReadModelRef,
  type ReadStore,
  type StoredDocument,
} from '../../ports/readStore.js';
import { guardSqlite } from './unavailable.js';
import { writeProbe } from './writeProbe.js';
import { walCheckpointer } from './walCheckpointer.js';

/** documents deleted per transaction when a dropped or replaced collection is cleared */
const CLEAR_CHUNK = 2000;
// SQLite limits bound parameters per statement; 500 ids per query stays well below it.
const MANY_CHUNK = 500;

/**
 * Read store on one SQLite file. Read models can always be rebuilt from the events, so commits use
 * synchronous=NORMAL in WAL mode: a power cut may lose the newest batch but never tears one (the
 * checkpoint is in the same transaction as its documents, so the batch is simply projected again).
 *
 * A collection's documents are stored under a physical name: the collection's own, until it is
 * dropped or replaced by a promote; then `collection_names` points it at another (`name#random`).
 * Dropping and promoting only repoint names, in a short transaction, whatever the collection's size
 * (rewriting 300,000 documents held the write lock for 17 s); the detached documents are deleted
 * afterwards a chunk per transaction, so other writers (the service's projector) get their turns.
 * Every read resolves the name in the same snapshot as the documents, so it sees one or the other.
 * The log is copied into the file by a thread of its own (walCheckpointer.ts), not by the commit
 * that fills it, so the event loop does not wait for a checkpoint's writes and fsyncs.
 * A file that cannot be used now (locked, full, read-only, failing) answers ReadStoreUnavailable.
 */
export interface SqliteReadStoreOptions {
  path: string;
  /**
   * Called with the connection once its tables exist: pragmas of the caller's own. Tests keep it to
   * make the file full (`max_page_count`) or read-only (`query_only`) while the store is in use.
   */
  onOpen?: (db: Database.Database) => void;
  /** documents written between two checkpoints of the log, which run on a thread of their own (walCheckpointer.ts) */
  checkpointAfterDocuments?: number;
  /** the checkpoint thread failed, or a checkpoint did */
  log?: (message: string, error?: unknown) => void;
}

/**
 * The documents, in a table with rowids and a unique index on (collection, id). In a WITHOUT ROWID
 * table every row sits in the key's B-tree, whose cells SQLite keeps in the page only up to about a
 * quarter of it (1,002 bytes of a 4 KiB page): a receipt's document (1,650 bytes) took a 4 KiB
 * overflow page of its own. A table's leaf keeps up to 4,061 bytes in the page, and the index holds
 * only the keys: rebuilds, live commits and point reads are faster, and the file and its log smaller.
 * `sort` and `keys` (a JSON array) are the document's index keys in `document_keys` (NULL: none): a
 * write replaces them by their primary key, so `document_keys` needs no index by document (its
 * entries went to random pages, one per document written: half the cost of a GraphQL item's keys).
 */
const DOCUMENTS = `CREATE TABLE documents (
  collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT NOT NULL, sort TEXT, keys TEXT,
  UNIQUE (collection, id))`;

/**
 * A change to a file made by an earlier version, made once, in one transaction: every process opening
 * the file meanwhile waits for it (busy_timeout) and then finds it done. `needed` is asked without the
 * write lock first (the usual open takes none), then again under it; `change` answers how many documents
 * it changed (undefined: nothing to tell), which `done` words for the log.
 */
function onceInFile(
  db: Database.Database,
  log: SqliteReadStoreOptions['log'],
  { needed, change, done }: { needed: () => boolean; change: () => number | undefined; done: (count: number) => string },
): void {
  if (!needed()) return;
  const started = performance.now();
  const count = db.transaction(() => (needed() ? change() : undefined)).immediate();
  if (count !== undefined) {
    log?.(`read store: ${done(count)} in ${Math.round(performance.now() - started)} ms (once: the file was made by an earlier version)`);
  }
}

/**
 * Creates the documents' table, or moves the documents of a file made by an earlier version (a
 * WITHOUT ROWID table) into one. The old table's pages go to the file's free list, which later writes
 * reuse: the file does not shrink.
 */
function documentsTable(db: Database.Database, log: SqliteReadStoreOptions['log']): void {
  const form = db.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = 'documents'").pluck();
  onceInFile(db, log, {
    // the usual open: the table is there in its form
    needed: () => form.get() !== 0,
    change: () => {
      const table = form.get() as number | undefined;
      if (table === undefined) db.exec(DOCUMENTS);
      if (table !== 1) return undefined;
      db.exec('ALTER TABLE documents RENAME TO documents_without_rowid');
      db.exec(DOCUMENTS);
      const { changes } = db
        .prepare('INSERT INTO documents (collection, id, position, doc) SELECT collection, id, position, doc FROM documents_without_rowid')
        .run();
      db.exec('DROP TABLE documents_without_rowid');
      return changes;
    },
    done: (moved) => `${moved} documents moved to a table with rowids`,
  });
}

/**
 * Records each document's index keys with it (`sort`, `keys`) in a file made by an earlier version,
 * which found them through an index of `document_keys` by document, and drops that index (a file whose
 * documents were just moved has the columns, and may have the index still).
 */
function keysWithDocuments(db: Database.Database, log: SqliteReadStoreOptions['log']): void {
  const hasColumns = db.prepare("SELECT count(*) FROM pragma_table_info('documents') WHERE name = 'keys'").pluck();
  const hasIndex = db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'document_keys_by_id'").pluck();
  onceInFile(db, log, {
    needed: () => hasColumns.get() === 0 || hasIndex.get() === 1,
    change: () => {
      if (hasColumns.get() === 0) db.exec('ALTER TABLE documents ADD COLUMN sort TEXT; ALTER TABLE documents ADD COLUMN keys TEXT');
      // a document's keys were all written under one sort key
      const { changes } = db
        .prepare(
          `UPDATE documents SET sort = k.sort, keys = k.keys
           FROM (SELECT collection, id, min(sort) AS sort, json_group_array(key) AS keys FROM document_keys GROUP BY collection, id) AS k
           WHERE documents.collection = k.collection AND documents.id = k.id`,
        )
        .run();
      db.exec('DROP INDEX IF EXISTS document_keys_by_id');
      return changes;
    },
    done: (recorded) => `the index keys of ${recorded} documents recorded with them`,
  });
}

export function openSqliteReadStore({ path, onOpen, checkpointAfterDocuments, log }: SqliteReadStoreOptions): ReadStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  documentsTable(db, log);
  db.exec(`
    CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS collection_names (name TEXT PRIMARY KEY, physical TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS detached (physical TEXT PRIMARY KEY) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS write_probe (id INTEGER PRIMARY KEY, padding BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS document_keys (
      collection TEXT NOT NULL, key TEXT NOT NULL, sort TEXT NOT NULL, id TEXT NOT NULL,
      PRIMARY KEY (collection, key, sort)) WITHOUT ROWID;
  `);
  keysWithDocuments(db, log);
  onOpen?.(db);
  // a file's log is copied into it off the event loop; an in-memory database has no log
  const checkpointer =
    path === ':memory:'
      ? undefined
      : walCheckpointer({ db, path, ...(checkpointAfterDocuments !== undefined && { afterDocuments: checkpointAfterDocuments }), ...(log && { log }) });
  const wrote = (documents: number) => checkpointer?.wrote(documents);

  const toStored = <T>(row: { position: bigint; doc: string }): StoredDocument<T> => ({
    doc: JSON.parse(row.doc) as T,
    position: row.position,
  });
  const guard = <T>(operation: () => T): T =>
    guardSqlite(operation, (code, cause) => new ReadStoreUnavailable(`the read store file cannot be used now (${code})`, { cause }));

  const { readOne, readScan, readMany, readByKey, commit, promote, clearChunk, detachDocuments, checkpointOf, takeLease, removeCheckpoint, probe } =
    statementsOf(db);
  let closed = false;
  let clearing: Promise<void> | undefined;
  /** also finishes what a process that stopped half-way left detached */
  const clearDetached = () =>
    (clearing ??= (async () => {
      // a turn of the event loop between chunks: this process keeps answering meanwhile
      while (!closed && guard(() => clearChunk.immediate())) {
        wrote(CLEAR_CHUNK);
        await turn();
      }
    })().finally(() => (clearing = undefined)));

  return {
    async get<T>(collection: string, id: string) {
      const row = guard(() => readOne(collection, id));
      return row && toStored<T>(row);
    },
    async getMany<T>(collection: string, ids: readonly string[]) {
      const out = new Map<string, StoredDocument<T>>();
      for (const row of guard(() => readMany(collection, [...new Set(ids)]))) out.set(row.id, toStored<T>(row));
      return out;
    },
    async scan<T>(collection: string, page: { afterId?: string; limit: number }) {
      return guard(() => readScan(collection, page.afterId ?? '', page.limit)).map((row) => ({ id: row.id, ...toStored<T>(row) }));
    },
    async findByKey<T>(collection: string, key: string, page: KeyPage) {
      return guard(() => readByKey(collection, key, page)).map((row) => ({ id: row.id, sort: row.sort, ...toStored<T>(row) }));
    },
    async commit(writes, checkpoints) {
      // after a running checkpoint of the log, so that the log can start again (WalCheckpointer.running)
      for (let running = checkpointer?.running(); running; running = checkpointer?.running()) await running;
      // IMMEDIATE: a transaction that read the checkpoints first could not upgrade to writing once
      // another process committed in between (WAL snapshots); taking the write lock at BEGIN waits instead
      guard(() => commit.immediate(writes, checkpoints));
      wrote(writes.length + checkpoints.length);
    },
    async getCheckpoint(name) {
      return guard(() => checkpointOf(name));
    },
    async dropCollection(collection) {
      guard(() => db.transaction(detachDocuments).immediate(collection));
      wrote(1);
      await clearDetached();
    },
    async tryLease(name, holder, ttlMs, now) {
      const taken = guard(() => takeLease.run(name, holder, now + ttlMs, now).changes === 1);
      wrote(1);
      return taken;
    },
    async deleteCheckpoint(name) {
      guard(() => removeCheckpoint.run(name));
      wrote(1);
    },
    async promote(from, to, options = {}) {
      // IMMEDIATE: the write lock is taken before the checkpoints are read, so they cannot change in between
      const promoted = guard(() => promote.immediate(from, to, options.replacing));
      wrote(1);
      if (promoted) await clearDetached();
      return promoted;
    },
    async probeWrite() {
      guard(probe);
      wrote(1);
    },
    async close() {
      closed = true;
      await clearing;
      await checkpointer?.close();
      db.close();
    },
  };
}

/**
 * The store's statements, prepared once, and the transactions made of them: a read resolves a
 * collection's name in the same snapshot as its documents; a write goes to the name's documents.
 */
function statementsOf(db: Database.Database) {
  // one statement reads the collection's name and its document in one snapshot, without the cost of a
  // transaction around two (a third of a status query's time in the read store)
  const getOne = db
    .prepare('SELECT position, doc FROM documents WHERE collection = coalesce((SELECT physical FROM collection_names WHERE name = ?), ?) AND id = ?')
    .safeIntegers(true);
  const upsert = db.prepare(
    `INSERT INTO documents (collection, id, position, doc, sort, keys) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (collection, id) DO UPDATE SET position = excluded.position, doc = excluded.doc, sort = excluded.sort, keys = excluded.keys`,
  );
  const remove = db.prepare('DELETE FROM documents WHERE collection = ? AND id = ?');
  // `LIMIT +?` rather than `LIMIT ?`, which SQLite prepares again at every run (eventStoreSchema.ts)
  const scan = db.prepare('SELECT id, position, doc FROM documents WHERE collection = ? AND id > ? ORDER BY id LIMIT +?').safeIntegers(true);
  const getCheckpoint = db.prepare('SELECT position FROM checkpoints WHERE name = ?').safeIntegers(true);
  const putCheckpoint = db.prepare('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position');
  const removeCheckpoint = db.prepare('DELETE FROM checkpoints WHERE name = ?');
  // one statement: taken when free, expired, or already ours; SQLite's write lock makes it atomic across processes
  const takeLease = db.prepare(
    `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE leases.holder = excluded.holder OR leases.expires_at <= ?`,
  );
  // a document's keys: replaced whole on each write, the old ones found in its row (DOCUMENTS)
  const keysOf = db.prepare('SELECT sort, keys FROM documents WHERE collection = ? AND id = ?');
  const removeKey = db.prepare('DELETE FROM document_keys WHERE collection = ? AND key = ? AND sort = ? AND id = ?');
  const putKey = db.prepare('INSERT OR REPLACE INTO document_keys (collection, key, sort, id) VALUES (?, ?, ?, ?)');
  const clearSomeKeys = db.prepare(
    'DELETE FROM document_keys WHERE (collection, key, sort) IN (SELECT collection, key, sort FROM document_keys WHERE collection = ? LIMIT +?)',
  );
  const physicalName = db.prepare('SELECT physical FROM collection_names WHERE name = ?').pluck();
  const pointName = db.prepare('INSERT INTO collection_names (name, physical) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET physical = excluded.physical');
  const detach = db.prepare('INSERT OR IGNORE INTO detached (physical) VALUES (?)');
  const someDetached = db.prepare('SELECT physical FROM detached LIMIT 1').pluck();
  const cleared = db.prepare('DELETE FROM detached WHERE physical = ?');
  const clearSome = db.prepare('DELETE FROM documents WHERE collection = ? AND id IN (SELECT id FROM documents WHERE collection = ? LIMIT +?)');

  const checkpointOf = (name: string) => (getCheckpoint.get(name) as { position: bigint } | undefined)?.position;
  const physicalOf = (collection: string) => (physicalName.get(collection) as string | undefined) ?? collection;
  // '#' never appears in a projection's collection name, so a fresh name is no collection's own
  const freshPhysical = (collection: string) => `${collection}#${randomBytes(9).toString('base64url')}`;
  /** `collection` starts empty; its documents wait in `detached` to be deleted */
  const detachDocuments = (collection: string) => {
    detach.run(physicalOf(collection));
    pointName.run(collection, freshPhysical(collection));
  };

  // a transaction, so the name and the documents are read in one snapshot
  const read = <A extends unknown[], R>(fn: (...args: A) => R) => db.transaction(fn);
  const readOne = (collection: string, id: string) => getOne.get(collection, collection, id) as { position: bigint; doc: string } | undefined;
  const readScan = read((collection: string, afterId: string, limit: number) => scan.all(physicalOf(collection), afterId, limit) as Row[]);
  const readMany = read((collection: string, ids: readonly string[]) => {
    const physical = physicalOf(collection);
    const rows: Row[] = [];
    for (let i = 0; i < ids.length; i += MANY_CHUNK) {
      const part = ids.slice(i, i + MANY_CHUNK);
      rows.push(...(manyStatement(part.length).all(physical, ...part) as Row[]));
    }
    return rows;
  });

  const keyStatement = keyStatementsOf(db);
  const readByKey = read(
    (collection: string, key: string, page: KeyPage) =>
      keyStatement(page).all(
        physicalOf(collection),
        key,
        ...(page.after !== undefined ? [page.after] : []),
        ...(page.before !== undefined ? [page.before] : []),
        page.limit,
      ) as KeyRow[],
  );

  // the checks come first, so a refused commit has written nothing
  const commit = db.transaction((writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]) => {
    for (const c of checkpoints) {
      if (c.expected === undefined) continue;
      const actual = checkpointOf(c.name);
      if (c.expected === null ? actual !== undefined : actual !== c.expected) throw new CheckpointConflict(c.name, c.expected, actual);
    }
    const physical = new Map<string, string>();
    for (const w of writes) {
      let p = physical.get(w.collection);
      if (p === undefined) physical.set(w.collection, (p = physicalOf(w.collection)));
      const had = keysOf.get(p, w.id) as { sort: string | null; keys: string | null } | undefined;
      // the keys the document has after this write (none: NULL in its row)
      const index = w.doc !== undefined && w.index !== undefined && w.index.keys.length > 0 ? w.index : undefined;
      const keys = index && [...new Set(index.keys)];
      const sort = index?.sort ?? null;
      const text = keys ? JSON.stringify(keys) : null;
      // the same keys under the same sort (a document changed, its keys not): nothing to replace
      const same = had !== undefined && had.sort === sort && had.keys === text;
      if (!same && had?.keys) for (const key of JSON.parse(had.keys) as string[]) removeKey.run(p, key, had.sort, w.id);
      if (w.doc === undefined) remove.run(p, w.id);
      else upsert.run(p, w.id, w.position, JSON.stringify(w.doc), sort, text);
      if (!same && keys) for (const key of keys) putKey.run(p, key, sort, w.id);
    }
    for (const c of checkpoints) putCheckpoint.run(c.name, c.position);
  });

  const promote = db.transaction((from: ReadModelRef, to: ReadModelRef, replacing: bigint | undefined): boolean => {
    const built = checkpointOf(from.checkpoint);
    if (built === undefined) throw new Error(`cannot promote ${from.collection}: checkpoint ${from.checkpoint} does not exist`);
    const live = checkpointOf(to.checkpoint);
    if (live !== undefined && live > built && live !== replacing) return false;
    // a model promoted onto itself keeps its documents (rather than having them cleared)
    if (from.collection !== to.collection) {
      detach.run(physicalOf(to.collection));
      pointName.run(to.collection, physicalOf(from.collection));
      pointName.run(from.collection, freshPhysical(from.collection));
    }
    putCheckpoint.run(to.checkpoint, built);
    removeCheckpoint.run(from.checkpoint);
    return true;
  });

  /** one chunk of detached documents deleted; false when none is left */
  const clearChunk = db.transaction((): boolean => {
    const physical = someDetached.get() as string | undefined;
    if (physical === undefined) return false;
    const keys = clearSomeKeys.run(physical, CLEAR_CHUNK).changes;
    if (clearSome.run(physical, physical, CLEAR_CHUNK).changes === 0 && keys === 0) cleared.run(physical);
    return true;
  });
  const manyStatements = new Map<number, Database.Statement>();
  const manyStatement = (n: number) => {
    let s = manyStatements.get(n);
    if (!s) {
      s = db.prepare(`SELECT id, position, doc FROM documents WHERE collection = ? AND id IN (${Array(n).fill('?').join(',')})`).safeIntegers(true);
      manyStatements.set(n, s);
    }
    return s;
  };

  return {
    readOne,
    readScan,
    readMany,
    readByKey,
    commit,
    promote,
    clearChunk,
    detachDocuments,
    checkpointOf,
    takeLease,
    removeCheckpoint,
    probe: writeProbe(db),
  };
}

/** `findByKey`'s statement per shape (after and before each present or not, in two directions), prepared once each */
function keyStatementsOf(db: Database.Database): (page: KeyPage) => Database.Statement {
  const keyStatements = new Map<string, Database.Statement>();
  return ({ after, before, descending }: KeyPage) => {
    const shape = `${after !== undefined}${before !== undefined}${descending}`;
    let s = keyStatements.get(shape);
    if (!s) {
      const [past, short] = descending ? ['<', '>'] : ['>', '<'];
      s = db
        .prepare(
          `SELECT k.id, k.sort, d.position, d.doc FROM document_keys k JOIN documents d ON d.collection = k.collection AND d.id = k.id
           WHERE k.collection = ? AND k.key = ?${after !== undefined ? ` AND k.sort ${past} ?` : ''}${before !== undefined ? ` AND k.sort ${short} ?` : ''}
           ORDER BY k.sort ${descending ? 'DESC' : 'ASC'} LIMIT +?`,
        )
        .safeIntegers(true);
      keyStatements.set(shape, s);
    }
    return s;
  };
}

interface KeyRow extends Row {
  sort: string;
}

interface Row {
  id: string;
  position: bigint;
  doc: string;
}

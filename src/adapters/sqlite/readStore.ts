import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CheckpointWrite, DocumentWrite, ReadStore, StoredDocument } from '../../ports/readStore.js';

/**
 * Read store on one SQLite file. Read models can always be rebuilt from the events, so commits use
 * synchronous=NORMAL in WAL mode: a power cut may lose the newest batch but never tears one (the
 * checkpoint is in the same transaction as its documents, so the batch is simply projected again).
 */
export function openSqliteReadStore({ path }: { path: string }): ReadStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS documents (
      collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT NOT NULL,
      PRIMARY KEY (collection, id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
  `);

  const getOne = db.prepare('SELECT position, doc FROM documents WHERE collection = ? AND id = ?').safeIntegers(true);
  const upsert = db.prepare(
    `INSERT INTO documents (collection, id, position, doc) VALUES (?, ?, ?, ?)
     ON CONFLICT (collection, id) DO UPDATE SET position = excluded.position, doc = excluded.doc`,
  );
  const remove = db.prepare('DELETE FROM documents WHERE collection = ? AND id = ?');
  const scan = db
    .prepare('SELECT id, position, doc FROM documents WHERE collection = ? AND id > ? ORDER BY id LIMIT ?')
    .safeIntegers(true);
  const getCheckpoint = db.prepare('SELECT position FROM checkpoints WHERE name = ?').safeIntegers(true);
  const putCheckpoint = db.prepare(
    'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
  );
  const removeCheckpoint = db.prepare('DELETE FROM checkpoints WHERE name = ?');
  const dropCollection = db.prepare('DELETE FROM documents WHERE collection = ?');
  // one statement: taken when free, expired, or already ours; SQLite's write lock makes it atomic across processes
  const takeLease = db.prepare(
    `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE leases.holder = excluded.holder OR leases.expires_at <= ?`,
  );

  const toStored = <T>(row: { position: bigint; doc: string }): StoredDocument<T> => ({
    doc: JSON.parse(row.doc) as T,
    position: row.position,
  });

  const commit = db.transaction((writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]) => {
    for (const w of writes) {
      if (w.doc === undefined) remove.run(w.collection, w.id);
      else upsert.run(w.collection, w.id, w.position, JSON.stringify(w.doc));
    }
    for (const c of checkpoints) putCheckpoint.run(c.name, c.position);
  });

  // SQLite limits bound parameters per statement; 500 ids per query stays well below it.
  const MANY_CHUNK = 500;
  const manyStatements = new Map<number, Database.Statement>();
  const manyStatement = (n: number) => {
    let s = manyStatements.get(n);
    if (!s) {
      s = db
        .prepare(`SELECT id, position, doc FROM documents WHERE collection = ? AND id IN (${Array(n).fill('?').join(',')})`)
        .safeIntegers(true);
      manyStatements.set(n, s);
    }
    return s;
  };

  return {
    async get<T>(collection: string, id: string) {
      const row = getOne.get(collection, id) as { position: bigint; doc: string } | undefined;
      return row && toStored<T>(row);
    },
    async getMany<T>(collection: string, ids: readonly string[]) {
      const out = new Map<string, StoredDocument<T>>();
      const unique = [...new Set(ids)];
      for (let i = 0; i < unique.length; i += MANY_CHUNK) {
        const part = unique.slice(i, i + MANY_CHUNK);
        const rows = manyStatement(part.length).all(collection, ...part) as { id: string; position: bigint; doc: string }[];
        for (const row of rows) out.set(row.id, toStored<T>(row));
      }
      return out;
    },
    async scan<T>(collection: string, page: { afterId?: string; limit: number }) {
      const rows = scan.all(collection, page.afterId ?? '', page.limit) as { id: string; position: bigint; doc: string }[];
      return rows.map((row) => ({ id: row.id, ...toStored<T>(row) }));
    },
    async commit(writes, checkpoints) {
      commit(writes, checkpoints);
    },
    async getCheckpoint(name) {
      const row = getCheckpoint.get(name) as { position: bigint } | undefined;
      return row?.position;
    },
    async dropCollection(collection) {
      dropCollection.run(collection);
    },
    async tryLease(name, holder, ttlMs, now) {
      return takeLease.run(name, holder, now + ttlMs, now).changes === 1;
    },
    async deleteCheckpoint(name) {
      removeCheckpoint.run(name);
    },
    async close() {
      db.close();
    },
  };
}

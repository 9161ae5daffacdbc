import { mkdtemp, rm, stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Sqlite from 'better-sqlite3';
import type Database from 'better-sqlite3';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { walCheckpointer } from '../../src/adapters/sqlite/walCheckpointer.js';
import { ReadStoreUnavailable } from '../../src/ports/readStore.js';
import { readStoreContract } from './contract.js';

readStoreContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
  return { store: openSqliteReadStore({ path: join(dir, 'read.db') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe('sqlite read store', () => {
  it('keeps committed documents across a reopen of the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
    try {
      const first = openSqliteReadStore({ path: join(dir, 'read.db') });
      await first.commit([{ collection: 'c', id: 'a', doc: { kept: true }, position: 3n }], [{ name: 'p', position: 3n }]);
      await first.close();
      const second = openSqliteReadStore({ path: join(dir, 'read.db') });
      expect(await second.get('c', 'a')).to.deep.equal({ doc: { kept: true }, position: 3n });
      expect(await second.getCheckpoint('p')).to.equal(3n);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('the documents table', () => {
    const tableForm = (db: Database.Database) =>
      db.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").pluck().get('documents') as number | undefined;
    /** a file as an earlier version made it: `sql` run on a fresh one */
    async function earlierFile(sql: string): Promise<{ dir: string; path: string }> {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      const path = join(dir, 'read.db');
      const old = new Sqlite(path);
      old.pragma('journal_mode = WAL');
      old.exec(sql);
      old.close();
      return { dir, path };
    }

    it('keeps documents in a table with rowids (a document of up to about 4 KB stays in its page), found by (collection, id)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      let db!: Database.Database;
      const store = openSqliteReadStore({ path: join(dir, 'read.db'), onOpen: (connection) => (db = connection) });
      try {
        expect(tableForm(db)).to.equal(0);
        const plan = db.prepare('EXPLAIN QUERY PLAN SELECT doc FROM documents WHERE collection = ? AND id = ?').all('c', 'a') as { detail: string }[];
        expect(plan.map((r) => r.detail)).to.deep.equal(['SEARCH documents USING INDEX sqlite_autoindex_documents_1 (collection=? AND id=?)']);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('moves the documents of a file made by an earlier version (a WITHOUT ROWID table) into it once, at open, keeping every document and checkpoint', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      const path = join(dir, 'read.db');
      const old = new Sqlite(path);
      old.pragma('journal_mode = WAL');
      old.exec(`
        CREATE TABLE documents (
          collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT NOT NULL,
          PRIMARY KEY (collection, id)) WITHOUT ROWID;
        CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE collection_names (name TEXT PRIMARY KEY, physical TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO collection_names VALUES ('c', 'c#earlier');
        INSERT INTO checkpoints VALUES ('p', 7);
      `);
      const insert = old.prepare('INSERT INTO documents VALUES (?, ?, ?, ?)');
      for (let i = 0; i < 300; i++) insert.run('c#earlier', `d${String(i).padStart(3, '0')}`, i + 1, JSON.stringify({ n: i, padding: 'x'.repeat(1500) }));
      insert.run('other', 'a', 5, JSON.stringify({ other: true }));
      old.close();

      const logged: string[] = [];
      let db!: Database.Database;
      const store = openSqliteReadStore({ path, onOpen: (connection) => (db = connection), log: (message) => logged.push(message) });
      try {
        expect(tableForm(db)).to.equal(0);
        expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'documents_without_rowid'").pluck().get()).to.equal(0);
        expect(logged).to.have.length(1);
        expect(logged[0]).to.match(/^read store: 301 documents moved to a table with rowids in \d+ ms \(once: the file was made by an earlier version\)$/);
        expect(await store.get('c', 'd042')).to.deep.equal({ doc: { n: 42, padding: 'x'.repeat(1500) }, position: 43n });
        expect(await store.get('other', 'a')).to.deep.equal({ doc: { other: true }, position: 5n });
        const all = await store.scan('c', { limit: 1000 });
        expect(all.map((d) => d.id)).to.deep.equal(Array.from({ length: 300 }, (_, i) => `d${String(i).padStart(3, '0')}`));
        expect(await store.getCheckpoint('p')).to.equal(7n);
        // an upsert meets the same key's document, a new one goes beside it
        await store.commit(
          [
            { collection: 'c', id: 'd000', doc: { n: 'changed' }, position: 8n },
            { collection: 'c', id: 'new', doc: { n: 'new' }, position: 8n },
          ],
          [{ name: 'p', position: 8n, expected: 7n }],
        );
        expect(await store.get('c', 'd000')).to.deep.equal({ doc: { n: 'changed' }, position: 8n });
        expect((await store.scan('c', { limit: 1000 })).length).to.equal(301);
      } finally {
        await store.close();
      }
      // moved once: a second open finds nothing to move
      const reopened = openSqliteReadStore({ path, log: (message) => logged.push(message) });
      try {
        expect(logged).to.have.length(1);
        expect(await reopened.get('c', 'new')).to.deep.equal({ doc: { n: 'new' }, position: 8n });
      } finally {
        await reopened.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("deletes a dropped collection's documents and index keys from the file, a chunk at a time, and no other's", async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      let db!: Database.Database;
      const store = openSqliteReadStore({ path: join(dir, 'read.db'), onOpen: (connection) => (db = connection) });
      const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
      try {
        // more than one chunk (CLEAR_CHUNK, 2,000) of keys
        const writes = Array.from({ length: 1500 }, (_, i) => ({
          collection: 'gone',
          id: `d${i}`,
          doc: { i },
          position: 1n,
          index: { keys: ['all', `n:${i % 7}`], sort: `s${i}` },
        }));
        await store.commit([...writes, { collection: 'kept', id: 'k', doc: {}, position: 1n, index: { keys: ['all'], sort: 's' } }], []);
        expect([count('documents'), count('document_keys')]).to.deep.equal([1501, 3001]);
        await store.dropCollection('gone');
        expect([count('documents'), count('document_keys')]).to.deep.equal([1, 1]);
        expect((await store.findByKey('kept', 'all', { limit: 10, descending: true })).map((f) => f.id)).to.deep.equal(['k']);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('records the index keys of documents it moves out of a WITHOUT ROWID table too', async () => {
      const { dir, path } = await earlierFile(`
        CREATE TABLE documents (
          collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT NOT NULL,
          PRIMARY KEY (collection, id)) WITHOUT ROWID;
        CREATE TABLE document_keys (
          collection TEXT NOT NULL, key TEXT NOT NULL, sort TEXT NOT NULL, id TEXT NOT NULL,
          PRIMARY KEY (collection, key, sort)) WITHOUT ROWID;
        CREATE INDEX document_keys_by_id ON document_keys (collection, id);
        INSERT INTO documents VALUES ('k', 'a', 1, '{"id":"a"}');
        INSERT INTO document_keys VALUES ('k', 'tag:x', '1:a', 'a');
      `);
      const logged: string[] = [];
      const store = openSqliteReadStore({ path, log: (message) => logged.push(message) });
      try {
        expect(logged.map((m) => m.replace(/ in \d+ ms /, ' in N ms '))).to.deep.equal([
          'read store: 1 documents moved to a table with rowids in N ms (once: the file was made by an earlier version)',
          'read store: the index keys of 1 documents recorded with them in N ms (once: the file was made by an earlier version)',
        ]);
        await store.commit([{ collection: 'k', id: 'a', doc: { id: 'a' }, position: 2n, index: { keys: ['tag:y'], sort: '2:a' } }], []);
        expect(await store.findByKey('k', 'tag:x', { limit: 10, descending: true })).to.deep.equal([]);
        expect((await store.findByKey('k', 'tag:y', { limit: 10, descending: true })).map((f) => f.id)).to.deep.equal(['a']);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("records each document's index keys with it in a file made by an earlier version, once, and drops the index by document", async () => {
      const { dir, path } = await earlierFile(`
        CREATE TABLE documents (
          collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT NOT NULL,
          UNIQUE (collection, id));
        CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE document_keys (
          collection TEXT NOT NULL, key TEXT NOT NULL, sort TEXT NOT NULL, id TEXT NOT NULL,
          PRIMARY KEY (collection, key, sort)) WITHOUT ROWID;
        CREATE INDEX document_keys_by_id ON document_keys (collection, id);
        INSERT INTO documents (collection, id, position, doc) VALUES ('k', 'a', 1, '{"id":"a"}'), ('k', 'b', 2, '{"id":"b"}'), ('plain', 'c', 3, '{"id":"c"}');
        INSERT INTO document_keys VALUES ('k', 'all', '1:a', 'a'), ('k', 'tag:x', '1:a', 'a'), ('k', 'all', '2:b', 'b');
      `);

      const logged: string[] = [];
      let db!: Database.Database;
      const store = openSqliteReadStore({ path, onOpen: (connection) => (db = connection), log: (message) => logged.push(message) });
      const ids = (found: { id: string }[]) => found.map((f) => f.id);
      try {
        expect(logged).to.have.length(1);
        expect(logged[0]).to.match(
          /^read store: the index keys of 2 documents recorded with them in \d+ ms \(once: the file was made by an earlier version\)$/,
        );
        expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'document_keys_by_id'").pluck().get()).to.equal(0);
        expect(db.prepare('SELECT id, sort, keys FROM documents ORDER BY id').all()).to.deep.equal([
          { id: 'a', sort: '1:a', keys: '["all","tag:x"]' },
          { id: 'b', sort: '2:b', keys: '["all"]' },
          { id: 'c', sort: null, keys: null },
        ]);
        expect(ids(await store.findByKey('k', 'tag:x', { limit: 10, descending: true }))).to.deep.equal(['a']);
        // written again: the keys it had go, whatever version wrote them
        await store.commit(
          [
            { collection: 'k', id: 'a', doc: { id: 'a' }, position: 4n, index: { keys: ['tag:y'], sort: '4:a' } },
            { collection: 'k', id: 'b', doc: undefined, position: 4n },
          ],
          [],
        );
        expect(ids(await store.findByKey('k', 'all', { limit: 10, descending: true }))).to.deep.equal([]);
        expect(ids(await store.findByKey('k', 'tag:x', { limit: 10, descending: true }))).to.deep.equal([]);
        expect((await store.findByKey('k', 'tag:y', { limit: 10, descending: true })).map((f) => f.sort)).to.deep.equal(['4:a']);
        expect(db.prepare('SELECT key, sort, id FROM document_keys').all()).to.deep.equal([{ key: 'tag:y', sort: '4:a', id: 'a' }]);
      } finally {
        await store.close();
      }
      const reopened = openSqliteReadStore({ path, log: (message) => logged.push(message) });
      try {
        expect(logged).to.have.length(1);
      } finally {
        await reopened.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('a file that cannot be written', () => {
    const causeOf = (error: unknown) => ((error as Error).cause as { code?: string } | undefined)?.code;
    const docs = (n: number, position: bigint) =>
      Array.from({ length: n }, (_, i) => ({ collection: 'c', id: `d${i}`, doc: { padding: 'x'.repeat(4096) }, position }));

    it('answers ReadStoreUnavailable (SQLITE_FULL) when the file cannot grow, writes nothing of the commit, and commits once it can', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      let db!: Database.Database;
      const store = openSqliteReadStore({ path: join(dir, 'read.db'), onOpen: (connection) => (db = connection) });
      try {
        await store.commit(docs(1, 1n), [{ name: 'p', position: 1n }]);
        db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
        const error = await store.commit(docs(50, 2n), [{ name: 'p', position: 2n }]).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(ReadStoreUnavailable);
        expect(causeOf(error)).to.equal('SQLITE_FULL');
        expect(await store.getCheckpoint('p')).to.equal(1n);
        expect(await store.get('c', 'd1')).to.equal(undefined);
        db.pragma('max_page_count = 1073741823');
        await store.commit(docs(50, 2n), [{ name: 'p', position: 2n }]);
        expect(await store.getCheckpoint('p')).to.equal(2n);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('answers ReadStoreUnavailable (SQLITE_READONLY) to a commit and a lease while the connection may not write', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      let db!: Database.Database;
      const store = openSqliteReadStore({ path: join(dir, 'read.db'), onOpen: (connection) => (db = connection) });
      try {
        db.pragma('query_only = ON');
        const error = await store.commit(docs(1, 1n), [{ name: 'p', position: 1n }]).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(ReadStoreUnavailable);
        expect(causeOf(error)).to.equal('SQLITE_READONLY');
        expect(await store.tryLease('l', 'me', 1000, 0).catch((e: unknown) => e)).to.be.instanceOf(ReadStoreUnavailable);
        expect(await store.getCheckpoint('p')).to.equal(undefined);
        db.pragma('query_only = OFF');
        expect(await store.tryLease('l', 'me', 1000, 0)).to.equal(true);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('checkpoints of the log, on a thread of their own', () => {
    // a document of about a page: each one written is about a frame of the log
    const pageDocs = (from: number, n: number, position: bigint) =>
      Array.from({ length: n }, (_, i) => ({ collection: 'c', id: `d${from + i}`, doc: { padding: 'x'.repeat(3500) }, position }));
    const FRAME = 4096 + 24;

    it("makes no checkpoint on the store's own connection", async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      let db!: Database.Database;
      const store = openSqliteReadStore({ path: join(dir, 'read.db'), onOpen: (connection) => (db = connection) });
      try {
        expect(db.pragma('wal_autocheckpoint', { simple: true })).to.equal(0);
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('keeps the log bounded under commits that never pause: the thread copies it into the file and the next commit starts it again', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      const path = join(dir, 'read.db');
      const store = openSqliteReadStore({ path, checkpointAfterDocuments: 50 });
      try {
        // 600 documents of a page each, 10 a commit: without checkpoints the log holds 600 frames and more
        for (let i = 0; i < 60; i++) await store.commit(pageDocs(i * 10, 10, BigInt(i + 1)), [{ name: 'p', position: BigInt(i + 1) }]);
        const log = (await stat(`${path}-wal`)).size;
        expect(log, `log of ${Math.round(log / FRAME)} frames`).to.be.below(150 * FRAME);
        expect(await store.get('c', 'd0')).to.deep.equal({ doc: { padding: 'x'.repeat(3500) }, position: 1n });
        expect(await store.get('c', 'd599')).to.deep.equal({ doc: { padding: 'x'.repeat(3500) }, position: 60n });
        expect(await store.getCheckpoint('p')).to.equal(60n);
      } finally {
        await store.close();
      }
      // the documents are in the file itself once the store is closed
      const reopened = openSqliteReadStore({ path });
      try {
        expect((await reopened.scan('c', { limit: 1000 })).length).to.equal(600);
      } finally {
        await reopened.close();
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('gives the checkpoints back to the connection, and says so, when the thread fails', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'readstore-'));
      let db!: Database.Database;
      const store = openSqliteReadStore({ path: join(dir, 'read.db'), onOpen: (connection) => (db = connection) });
      const logged: string[] = [];
      const checkpointer = walCheckpointer({
        db,
        path: join(dir, 'read.db'),
        afterDocuments: 1,
        log: (message) => logged.push(message),
        startWorker: () => new Worker('throw new Error("no thread here")', { eval: true }),
      });
      try {
        checkpointer.wrote(1);
        await checkpointer.running();
        expect(logged).to.deep.equal(['read store checkpoints: the checkpoint thread failed; the connection checkpoints on its own again']);
        expect(db.pragma('wal_autocheckpoint', { simple: true })).to.equal(1000);
        expect(checkpointer.stats()).to.deep.equal({ checkpoints: 0, logFrames: undefined, onThread: false });
        // nothing more is asked of a thread that failed
        checkpointer.wrote(1);
        expect(checkpointer.running()).to.equal(undefined);
      } finally {
        await checkpointer.close();
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
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
});

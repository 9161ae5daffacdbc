import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
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
});

import { join } from 'node:path';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import type { StreamName } from '../../src/ports/eventStore.js';
import { splitRolesScenario } from '../support/splitRoles.js';
import { storedBlob } from '../support/storedBlob.js';

/** The split deployment on one machine with the embedded stores: every process shares one data directory. */
splitRolesScenario('embedded stores', async () => ({
  env: {},
  async streamTypes(stream, dataDir) {
    // a reader of its own on the shared file (WAL lets it read while the processes write)
    const events = openSqliteEventStore({ path: join(dataDir, 'events.db') });
    try {
      const types: string[] = [];
      for await (const event of events.readStream(stream as StreamName)) types.push(event.type);
      return types;
    } finally {
      await events.close();
    }
  },
  storedBlob: (key, dataDir) => storedBlob(dataDir, key),
  close: async () => {},
}));

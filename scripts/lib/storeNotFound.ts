import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../src/config.js';

/**
 * The configuration points at no store (a mistyped DATA_DIR, or a service never started there): a
 * configuration error, so runCli exits 2 with this message rather than acting on an empty store.
 */
export class StoreNotFound extends Error {
  override readonly name = 'StoreNotFound';
}

const hint = '(is DATA_DIR right? the service creates it at its first start)';

/**
 * Refuses a configuration whose event store does not exist, before anything is opened (opening the
 * SQLite file would create it). SQLite: `<DATA_DIR>/events.db` must be there. EventStoreDB is a
 * server, not checked: connecting creates nothing, an unreachable EVENTSTORE_URL fails on the first
 * read or append, and an empty database is what a cluster the service has not yet written to looks like.
 */
export function refuseMissingEventStore(config: Pick<Config, 'eventStore' | 'dataDir'>): void {
  const file = join(config.dataDir, 'events.db');
  if (config.eventStore === 'sqlite' && !existsSync(file)) throw new StoreNotFound(`no event store at ${file} ${hint}`);
}

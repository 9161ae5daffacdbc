import { randomUUID } from 'node:crypto';
import { parseConfig, type Config } from '../../src/config.js';
import { openEventStoreFromConfig } from '../../src/adapters/eventStoreFromConfig.js';
import { AccountRepository } from '../../src/app/accounts/accounts.js';
import { createAccountOperations, type AccountOperations, type OperatorMetadata } from '../../src/app/accounts/accountOperations.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { refuseMissingEventStore } from './storeNotFound.js';

/**
 * Opens the event store the service is configured with (same environment variables, same file) for
 * a tool that writes, runs it, and closes the store. Every writing tool goes through here: a store
 * that does not exist is refused (StoreNotFound, exit 2), never created, so a mistyped DATA_DIR
 * cannot take a credit into an empty store no service reads. Safe while the service runs: SQLite
 * takes turns between processes, expected revisions catch a concurrent write, and the service's
 * projector picks new events up by polling.
 */
export async function withExistingEventStore<T>(run: (eventStore: EventStore, config: Config) => Promise<T>): Promise<T> {
  const config = parseConfig();
  refuseMissingEventStore(config);
  const eventStore = await openEventStoreFromConfig(config);
  try {
    return await run(eventStore, config);
  } finally {
    await eventStore.close();
  }
}

/** One operator command on the accounts (credit, approve, revoke), in the configured event store. */
export function withOperatorStore<T>(run: (operations: AccountOperations) => Promise<T>): Promise<T> {
  return withExistingEventStore((eventStore) => run(createAccountOperations({ accounts: new AccountRepository(eventStore), now: Date.now })));
}

/** each CLI run is its own correlation; `cli` says who caused it (the admin API says `admin`) */
export const cliMetadata = (command: string): OperatorMetadata => ({
  correlationId: randomUUID(),
  causationId: 'cli',
  userAgent: `${command}-cli`,
});

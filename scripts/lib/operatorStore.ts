import { mkdir } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { parseConfig } from '../../src/config.js';
import { openEventStoreFromConfig } from '../../src/adapters/eventStoreFromConfig.js';
import { AccountRepository } from '../../src/app/accounts.js';
import { createAccountOperations, type AccountOperations, type OperatorMetadata } from '../../src/app/accountOperations.js';

/**
 * Opens the event store the service is configured with (same environment variables, same file), runs
 * one operator command, and closes it. Safe while the service runs: SQLite takes turns between
 * processes, the account's expected revision catches a concurrent write, and the service's
 * projector picks the events up by polling.
 */
export async function withOperatorStore<T>(run: (operations: AccountOperations) => Promise<T>): Promise<T> {
  const config = parseConfig();
  // the service creates the data directory at start; a CLI run before the first start does the same
  if (config.eventStore === 'sqlite') await mkdir(config.dataDir, { recursive: true });
  const eventStore = await openEventStoreFromConfig(config);
  try {
    const accounts = new AccountRepository(eventStore);
    return await run(createAccountOperations({ accounts, now: Date.now }));
  } finally {
    await eventStore.close();
  }
}

/** each CLI run is its own correlation; `cli` says who caused it (the admin API says `admin`) */
export const cliMetadata = (command: string): OperatorMetadata => ({
  correlationId: randomUUID(),
  causationId: 'cli',
  userAgent: `${command}-cli`,
});

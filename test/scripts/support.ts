import { runScript } from '../support/runScript.js';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { AccountRepository } from '../../src/app/accounts/accounts.js';
import { balanceBody, type BalanceBody } from '../../src/contract/balanceBody.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The event store as the service's first start leaves it (`<dataDir>/events.db`, no event yet): the
 * operator tools refuse a data directory without one.
 */
export async function createEventStore(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await openSqliteEventStore({ path: join(dataDir, 'events.db') }).close();
}

/** The account as its stream says, read from the SQLite file the CLI wrote. */
export async function storedBalance(dataDir: string, address: string): Promise<BalanceBody> {
  const eventStore = openSqliteEventStore({ path: join(dataDir, 'events.db') });
  try {
    return balanceBody(address, await new AccountRepository(eventStore).read(address));
  } finally {
    await eventStore.close();
  }
}

export type { CliResult } from '../support/runScript.js';
export const runCli = (script: 'credit' | 'approve', args: string[], env: Record<string, string>) => runScript(script, args, env);

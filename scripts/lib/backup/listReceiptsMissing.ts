import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openSqliteEventStore } from '../../../src/adapters/sqlite/eventStore.js';
import type { EventStore } from '../../../src/ports/eventStore.js';
import { writeStdout } from '../stdoutLines.js';
import { StoreNotFound } from '../storeNotFound.js';
import { receiptsMissingFrom } from './compareEvents.js';

/**
 * `npm run audit -- --compare-with <old DATA_DIR>`: one line per item the old SQLite event store
 * accepted that `here` has not (`receipted after the backup <id> (position P there)`), then a count.
 * How many were listed.
 */
export async function listReceiptsMissing(here: Pick<EventStore, 'readStream'>, oldDataDir: string): Promise<number> {
  const file = join(resolve(oldDataDir), 'events.db');
  if (!existsSync(file)) throw new StoreNotFound(`--compare-with: no event store at ${file}`);
  const old = openSqliteEventStore({ path: file });
  let count = 0;
  try {
    for await (const { id, position } of receiptsMissingFrom(here, old)) {
      await writeStdout(`receipted after the backup ${id} (position ${position} in ${file})\n`);
      count++;
    }
  } finally {
    await old.close();
  }
  await writeStdout(`compared with ${file}: ${count} receipted item${count === 1 ? '' : 's'} there ${count === 1 ? 'is' : 'are'} not here\n`);
  return count;
}

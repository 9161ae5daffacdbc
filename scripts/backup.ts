/**
 * `npm run backup -- <dir>`: an online, consistent backup of the running service's embedded stores
 * (DATA_DIR: SQLite event and read stores, blobs, the wallet) into the new or empty `<dir>`, with a
 * manifest of every file's size and sha256 and the event store's head position. Safe while the
 * service runs; see docs/operations.md "Backup and restore" and scripts/lib/backup/takeBackup.ts.
 */
import { resolve } from 'node:path';
import { parseConfig } from '../src/config.js';
import { takeBackup } from './lib/backup/takeBackup.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { runCli } from './lib/runCli.js';
import { refuseMissingEventStore } from './lib/storeNotFound.js';

const USAGE = `usage: npm run backup -- <dir>
  copies, while the service runs, the stores of its DATA_DIR into <dir> (new or empty):
  the read store, then the blobs, then the event store (the backup's point in time), then the blobs
  written meanwhile; the wallet (0600: the backup holds the service's key); manifest.json last
  embedded profile only (EVENT_STORE=sqlite, READ_STORE=sqlite, BLOB_STORE=fs): for the others see docs/operations.md
exit: 0 done, 1 failed (<dir> is then no backup: it has no manifest.json), 2 bad command line or configuration`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {});
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new UsageError(`expected one directory, got ${positionals.length} arguments`);
  const config = parseConfig();
  if (config.eventStore !== 'sqlite' || config.readStore !== 'sqlite' || config.blobStore !== 'fs')
    throw new UsageError(
      'npm run backup copies the embedded stores only (EVENT_STORE=sqlite, READ_STORE=sqlite, BLOB_STORE=fs); back up EventStoreDB and MongoDB with their own tools, as docs/operations.md says',
    );
  refuseMissingEventStore(config);
  const dest = resolve(positionals[0]!);
  const { manifest, blobs, smallBlobRowsAdded, bytes } = await takeBackup({ dataDir: config.dataDir, dest, walletFile: config.walletFile });
  return [
    `backup of ${config.dataDir} in ${dest}: ${manifest.files.length} files, ${bytes} bytes`,
    `  event store head: position ${manifest.eventStoreHead} (events appended after it are not in the backup)`,
    `  blob files: ${blobs.linked} hard-linked, ${blobs.copied} copied; ${smallBlobRowsAdded} small-blob rows added after the event store`,
    `  wallet: ${manifest.wallet === 'none' ? 'none (the service had not made one)' : `from ${manifest.wallet}, in wallet.json (0600): keep this backup as secret as the key`}`,
  ].join('\n');
});

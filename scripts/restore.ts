/**
 * `npm run restore -- <dir>`: the backup in `<dir>` (npm run backup) into DATA_DIR, which must be
 * empty or absent; every file checked against the manifest first. See docs/operations.md
 * "Backup and restore" and scripts/lib/backup/restoreBackup.ts.
 */
import { resolve } from 'node:path';
import { parseConfig } from '../src/config.js';
import { restoreBackup } from './lib/backup/restoreBackup.js';
import { parseCliArgs, UsageError } from './lib/cliArgs.js';
import { runCli } from './lib/runCli.js';

const USAGE = `usage: npm run restore -- <dir>
  restores the backup in <dir> into DATA_DIR, which must be empty or absent; checks every file's
  size and sha256 against <dir>/manifest.json before writing anything
  then: start the service (without WALLET_FILE, or with it pointing at DATA_DIR/wallet.json), and
  npm run audit -- --compare-with <old DATA_DIR>, if it is still reachable, lists what was receipted after the backup
exit: 0 restored, 1 refused or failed, 2 bad command line or configuration`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseCliArgs(process.argv.slice(2), {});
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new UsageError(`expected one backup directory, got ${positionals.length} arguments`);
  const config = parseConfig();
  const from = resolve(positionals[0]!);
  const { manifest, files, bytes } = await restoreBackup(from, config.dataDir);
  return [
    `restored ${files} files (${bytes} bytes) from ${from} into ${config.dataDir}`,
    `  backup taken ${manifest.startedAt} to ${manifest.finishedAt} by version ${manifest.serviceVersion}; event store head: position ${manifest.eventStoreHead}`,
    manifest.wallet === 'none'
      ? '  no wallet in the backup: the service makes a new one'
      : `  wallet (from ${manifest.wallet}) in ${config.dataDir}/wallet.json, mode 0600`,
    '  what the old service receipted after the backup is not here: npm run audit -- --compare-with <old DATA_DIR> lists it',
  ].join('\n');
});

import { chmod, copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { constants } from 'node:fs';
import { serviceVersion } from '../../../src/version.js';
import { SMALL_BLOB_FILE } from '../../../src/adapters/fs/tieredBlobStore.js';
import { isAbsent } from '../../../src/adapters/fs/errno.js';
import { copyBlobFiles, type BlobFilesCopied } from './blobFiles.js';
import { addNewSmallBlobRows, copySqlite, sqliteEventStoreHead } from './sqliteCopy.js';
import { fsyncDir, fsyncFile } from './durableFiles.js';
import { BACKUP_FORMAT, filesOf, writeManifest, type Manifest } from './manifest.js';

/** The steps of a backup, in the order they run. */
export type BackupStep = 'read store' | 'blobs' | 'event store' | 'blobs again';

export interface BackupOptions {
  /** the service's DATA_DIR (embedded profile: SQLite event and read stores, fs blob store) */
  dataDir: string;
  /** a new or empty directory */
  dest: string;
  /** the service's WALLET_FILE when set; else `DATA_DIR/wallet.json` is the wallet */
  walletFile?: string | undefined;
  /** called after each step (tests put uploads between two steps) */
  afterStep?: (step: BackupStep) => Promise<void>;
}

export interface BackupReport {
  manifest: Manifest;
  blobs: BlobFilesCopied;
  smallBlobRowsAdded: number;
  bytes: number;
}

/**
 * An online backup of a running embedded-profile service, in the order its consistency needs:
 * 1. the read store: its checkpoints are then at most the event store's head of step 3, never ahead
 *    of it (a restored service refuses read models ahead of its events: projections/aheadOfEvents.ts);
 *    one behind catches up from the events at start;
 * 2. the blobs (small-blob rows by SQLite's backup API, files by hard link or copy): a blob is written
 *    before the event that needs it (an item's bytes are durable before its acceptance is appended) and
 *    deleted only after the event that lets it go (an upload's chunks after its end), so every blob
 *    the events of step 3 still need, and that existed by now, is copied;
 * 3. the event store, last: the backup's point in time (`eventStoreHead`);
 * 4. the blobs again, only adding: those written between steps 2 and 3 (an item accepted meanwhile:
 *    in the events of step 3, not in the copy of step 2).
 * What follows step 3 on the service is not in the backup. Blobs of uploads still in flight at step 3
 * may be in it without their events: the restored service's orphan sweep removes them.
 */
export async function takeBackup(options: BackupOptions): Promise<BackupReport> {
  const { dataDir, dest } = options;
  const afterStep = options.afterStep ?? (async () => {});
  const startedAt = new Date().toISOString();
  await prepareDest(dest);

  await copySqlite(join(dataDir, 'read.db'), join(dest, 'read.db'));
  await afterStep('read store');

  const blobsFrom = join(dataDir, 'blobs');
  const blobsTo = join(dest, 'blobs');
  await mkdir(blobsTo, { recursive: true, mode: 0o700 });
  await copySqlite(join(blobsFrom, SMALL_BLOB_FILE), join(blobsTo, SMALL_BLOB_FILE));
  const first = await copyBlobFiles(blobsFrom, blobsTo);
  await afterStep('blobs');

  const events = await copySqlite(join(dataDir, 'events.db'), join(dest, 'events.db'));
  if (!events) throw new Error(`no event store at ${join(dataDir, 'events.db')} (is DATA_DIR right?)`);
  const head = sqliteEventStoreHead(join(dest, 'events.db'));
  await afterStep('event store');

  const smallBlobRowsAdded = await addNewSmallBlobRows(join(blobsFrom, SMALL_BLOB_FILE), join(blobsTo, SMALL_BLOB_FILE));
  const second = await copyBlobFiles(blobsFrom, blobsTo);
  await afterStep('blobs again');

  const wallet = await copyWallet(options);
  await copyIfThere(join(dataDir, 'block-height.json'), join(dest, 'block-height.json'));
  await fsyncDir(dest);

  const files = await filesOf(dest);
  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    serviceVersion,
    startedAt,
    finishedAt: new Date().toISOString(),
    eventStoreHead: head.toString(),
    wallet,
    files,
  };
  await writeManifest(dest, manifest);
  return {
    manifest,
    blobs: { linked: first.linked + second.linked, copied: first.copied + second.copied, kept: second.kept },
    smallBlobRowsAdded,
    bytes: files.reduce((sum, f) => sum + f.size, 0),
  };
}

/** `dest` created (0700: the backup holds the wallet), or refused when it holds anything already. */
async function prepareDest(dest: string): Promise<void> {
  await mkdir(dest, { recursive: true, mode: 0o700 });
  const there = await readdir(dest);
  if (there.length > 0) throw new Error(`${dest} is not empty (${there.length} entries): a backup goes into a new or empty directory`);
}

/** The wallet the service signs with, as `wallet.json` (0600): a restored service signs as the same wallet. */
async function copyWallet({ dataDir, dest, walletFile }: BackupOptions): Promise<Manifest['wallet']> {
  const copied = await copyIfThere(walletFile ?? join(dataDir, 'wallet.json'), join(dest, 'wallet.json'), 0o600);
  if (!copied && walletFile !== undefined) throw new Error(`WALLET_FILE ${walletFile} cannot be read`);
  return !copied ? 'none' : walletFile !== undefined ? 'WALLET_FILE' : 'DATA_DIR';
}

async function copyIfThere(source: string, dest: string, mode?: number): Promise<boolean> {
  try {
    await copyFile(source, dest, constants.COPYFILE_EXCL);
  } catch (error) {
    if (isAbsent(error)) return false;
    throw error;
  }
  if (mode !== undefined) await chmod(dest, mode);
  await fsyncFile(dest);
  return true;
}

import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, opendir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { errnoCode, isAbsent } from '../../../src/adapters/fs/errno.js';
import { fsyncDir, fsyncFile } from './durableFiles.js';

export interface BlobFilesCopied {
  linked: number;
  copied: number;
  /** already in the backup (a second pass): left as they were */
  kept: number;
}

/**
 * The blob files under `from` (the fs tier of the blob store, `DATA_DIR/blobs`) into `to`, every
 * directory of it walked one entry at a time. Skipped: the temp directory `.tmp` (writes in flight,
 * no blob yet) and the small-blob file (`.small-blobs.db` and its `-wal`, `-shm`: copied by SQLite's
 * backup API instead). A file already in `to` is kept: a second pass only adds.
 *
 * `items/` files are hard links where `to` is on the same filesystem: a committed item's file is
 * never written again (a new version is a new file renamed over it), so the link keeps the bytes it
 * had, whatever happens to the key later, for no space. Anything else (an upload's chunk files,
 * which a part written in place changes: writeAt.ts) is copied, as is everything when linking fails
 * (another filesystem: EXDEV). Copies and directories are fsynced.
 */
export async function copyBlobFiles(from: string, to: string): Promise<BlobFilesCopied> {
  const counts: BlobFilesCopied = { linked: 0, copied: 0, kept: 0 };
  await copyDir(from, to, '', counts);
  return counts;
}

const skippedAtRoot = (name: string) => name === '.tmp' || name.startsWith('.small-blobs.db');

async function copyDir(from: string, to: string, relative: string, counts: BlobFilesCopied): Promise<void> {
  let entries;
  try {
    entries = await opendir(join(from, relative));
  } catch (error) {
    if (isAbsent(error)) return;
    throw error;
  }
  await mkdir(join(to, relative), { recursive: true, mode: 0o700 });
  for await (const entry of entries) {
    if (relative === '' && skippedAtRoot(entry.name)) continue;
    const path = relative === '' ? entry.name : join(relative, entry.name);
    if (entry.isDirectory()) await copyDir(from, to, path, counts);
    else if (entry.isFile()) await copyOne(join(from, path), join(to, path), path.startsWith(`items${sep}`), counts);
  }
  await fsyncDir(join(to, relative));
}

async function copyOne(source: string, dest: string, immutable: boolean, counts: BlobFilesCopied): Promise<void> {
  if (await exists(dest)) {
    counts.kept++;
    return;
  }
  try {
    if (immutable && (await linked(source, dest))) {
      counts.linked++;
      return;
    }
    await copyFile(source, dest, constants.COPYFILE_EXCL);
    await fsyncFile(dest);
    counts.copied++;
  } catch (error) {
    // deleted since it was listed (an orphan swept, an upload's chunks dropped at its end): nothing the events need
    if (!isAbsent(error)) throw error;
  }
}

/** a hard link of `source` at `dest`; false when the filesystems differ (or links are not supported), so a copy is made instead */
async function linked(source: string, dest: string): Promise<boolean> {
  try {
    await link(source, dest);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP' || code === 'EMLINK') return false;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (isAbsent(error)) return false;
    throw error;
  }
}

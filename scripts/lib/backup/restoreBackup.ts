import { createReadStream } from 'node:fs';
import { chmod, mkdir, open, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { isAbsent } from '../../../src/adapters/fs/errno.js';
import { writeAll } from '../../../src/adapters/fs/writeAll.js';
import { digestOf, fsyncDir } from './durableFiles.js';
import { readManifest, type Manifest, type ManifestFile } from './manifest.js';

/** A backup that does not match its manifest: nothing was written to DATA_DIR. */
export class BackupDamaged extends Error {
  override readonly name = 'BackupDamaged';
}

export interface RestoreReport {
  manifest: Manifest;
  files: number;
  bytes: number;
}

/**
 * The backup in `from` into `dataDir`, which must be empty or absent (a restore never mixes with
 * stores already there). Every file is checked against the manifest (size, sha256) BEFORE anything is
 * written, then copied, hashed again as it is copied (a file changed since is refused), and fsynced
 * with its directory. The wallet is written 0600, the directory 0700.
 */
export async function restoreBackup(from: string, dataDir: string): Promise<RestoreReport> {
  const manifest = await readManifest(from);
  await refuseNonEmpty(dataDir);
  for (const file of manifest.files) await verify(from, file);

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const dirs = new Set<string>([dataDir]);
  for (const file of manifest.files) {
    const dest = join(dataDir, ...file.path.split('/'));
    await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
    dirs.add(dirname(dest));
    await copyVerified(join(from, ...file.path.split('/')), dest, file);
  }
  if (manifest.files.some((f) => f.path === 'wallet.json')) await chmod(join(dataDir, 'wallet.json'), 0o600);
  // deepest first: a directory's entry in its parent is synced after its own entries
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await fsyncDir(dir);
  return { manifest, files: manifest.files.length, bytes: manifest.files.reduce((sum, f) => sum + f.size, 0) };
}

async function refuseNonEmpty(dataDir: string): Promise<void> {
  let there: string[];
  try {
    there = await readdir(dataDir);
  } catch (error) {
    if (isAbsent(error)) return;
    throw error;
  }
  if (there.length > 0)
    throw new Error(
      `DATA_DIR ${dataDir} is not empty (${there.slice(0, 3).join(', ')}${there.length > 3 ? ', ...' : ''}): ` +
        'a restore goes into an empty or new directory only, never over stores already there',
    );
}

async function verify(from: string, file: ManifestFile): Promise<void> {
  let found;
  try {
    found = await digestOf(join(from, ...file.path.split('/')));
  } catch (error) {
    if (isAbsent(error)) throw new BackupDamaged(`the backup lacks ${file.path}, which its manifest lists: nothing restored`);
    throw error;
  }
  if (found.size !== file.size || found.sha256 !== file.sha256)
    throw new BackupDamaged(
      `${file.path} does not match the manifest (${found.size} bytes, sha256 ${found.sha256}; the manifest says ${file.size} bytes, sha256 ${file.sha256}): nothing restored`,
    );
}

/** `source` into the new file `dest`, hashed as it goes, fsynced; refused when it no longer matches the manifest. */
async function copyVerified(source: string, dest: string, file: ManifestFile): Promise<void> {
  const hash = createHash('sha256');
  let size = 0;
  const out = await open(dest, 'wx', 0o600);
  try {
    for await (const chunk of createReadStream(source, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      await writeAll(out, [chunk], size);
      size += chunk.byteLength;
    }
    await out.sync();
  } finally {
    await out.close();
  }
  const sha256 = hash.digest('hex');
  if (size !== file.size || sha256 !== file.sha256)
    throw new BackupDamaged(`${file.path} changed while it was restored: DATA_DIR is incomplete, empty it and restore again`);
}

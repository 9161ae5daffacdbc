import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errnoCode } from './errno.js';
import { sharedSync } from './sharedSync.js';

/**
 * fsync a directory. A rename or a new entry is only durable once the directory holding the entry
 * is synced; syncing the file alone does not persist its name.
 */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * mkdir -p whose new directories survive a power loss: each created directory is an entry in its
 * parent, so the parent of every directory it created is synced (`dir` itself is synced by the caller
 * after it puts something in it).
 */
export async function mkdirDurable(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  const parents: string[] = [];
  for (let created = dir; ; created = dirname(created)) {
    parents.push(dirname(created));
    if (created === first || dirname(created) === created) break;
  }
  await Promise.all(parents.map(syncDir));
}

/**
 * fsync a directory after the caller changed an entry in it, the sync shared with the callers doing
 * the same meanwhile (sharedSync.ts): many renames into one directory (`items/`) under load then
 * cost one open, fsync and close rather than one each.
 */
export const syncDirAfterChange = sharedSync(syncDir);

/**
 * Atomically put `from` (an already synced file) at `to`, replacing whatever file is there, and make
 * the new name durable. The rename is tried first: `to`'s directory nearly always exists, and a
 * directory this made was made durable when it was created (mkdirDurable). A deletePrefix running at
 * the same time may move `to`'s directory away between our mkdir and our rename (ENOENT); recreating
 * it and trying again orders this commit after that delete, which is what the caller asked for.
 */
export async function renameDurable(from: string, to: string): Promise<void> {
  const dir = dirname(to);
  for (let attempt = 1; ; attempt++) {
    try {
      await rename(from, to);
      break;
    } catch (error) {
      // ENOTDIR at first: maybe a file where the directory should be, which the mkdir reports as
      // EEXIST, as it did when it ran first; after the mkdir, the caller's (a directory over a file)
      const code = errnoCode(error);
      if (!(code === 'ENOENT' ? attempt < 3 : code === 'ENOTDIR' && attempt === 1)) throw error;
    }
    await mkdirDurable(dir);
  }
  await syncDirAfterChange(dir);
}

import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { isValidBlobKey, type ListedBlob } from '../../ports/blobStore.js';
import { readComposed } from './composed.js';
import { isAbsent } from './errno.js';
import { bestEffort } from '../../bestEffort.js';

/**
 * The files under `dir` (the directory of the key `prefix`), depth first, one directory entry at a
 * time (opendir reads entries in batches: a directory of millions of items is never read whole).
 * A composed blob's directory is listed as that one blob. What disappears during the walk (deleted, moved) is skipped; names that are not key segments (no
 * blob the store wrote has one) are left out.
 */
export async function* filesUnder(dir: string, prefix: string): AsyncGenerator<ListedBlob> {
  let entries;
  try {
    entries = await opendir(dir);
  } catch (error) {
    if (isAbsent(error)) return;
    throw error;
  }
  for await (const entry of entries) {
    const key = `${prefix}/${entry.name}`;
    if (!isValidBlobKey(key)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const composed = await readComposed(path);
      if (composed) {
        const info = await bestEffort(lstat(path), 'a blob deleted while listed is not listed');
        // a composed blob (see composed.ts) is one blob; renaming it into place moves its ctime
        if (info) yield { key, size: composed.size, modifiedAt: Math.max(info.mtimeMs, info.ctimeMs) };
      } else yield* filesUnder(path, key);
      continue;
    }
    if (!entry.isFile()) continue;
    try {
      const info = await lstat(path);
      // ctime moves when a committed file is renamed into place; mtime alone would keep the temp file's
      yield { key, size: info.size, modifiedAt: Math.max(info.mtimeMs, info.ctimeMs) };
    } catch (error) {
      if (!isAbsent(error)) throw error;
    }
  }
}

import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isAbsent } from './errno.js';

/**
 * Remove what dead writers (partial files) and interrupted deletePrefix calls (moved-away
 * directories) left in the temp directory. Entries touched within `olderThanMs` are kept: the root may
 * be shared by several processes of the service (ROLE=commands, bundler... on one machine), and a
 * live writer of another process keeps its file's mtime fresh with every write.
 */
export async function sweepTemp(tempDir: string, olderThanMs: number, now = Date.now()): Promise<void> {
  const names = await readdir(tempDir);
  for (const name of names) {
    const path = join(tempDir, name);
    try {
      const info = await lstat(path);
      // ctime moves when a directory is renamed into the temp dir; mtime alone would not
      const touched = Math.max(info.mtimeMs, info.ctimeMs);
      if (now - touched >= olderThanMs) await rm(path, { recursive: true, force: true });
    } catch (error) {
      if (!isAbsent(error)) throw error;
    }
  }
}

import { randomBytes } from 'node:crypto';
import { link, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDir } from './durable.js';

export interface WriteFileAtomicOptions {
  /** permission bits of the new file; set with chmod so the umask cannot change them */
  mode?: number;
  /**
   * Fail with EEXIST instead of replacing an existing file. Used where losing the file that is
   * already there would be a disaster (a wallet): the temp file is hard-linked into place, which
   * is atomic and never overwrites.
   */
  exclusive?: boolean;
}

/**
 * Writes `data` to `file` so that a reader (or a restart after a crash) sees either the old
 * content or the whole new content, never a torn file: temp file in the same directory, fsync,
 * rename (or link), fsync of the directory so the new name itself is durable.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  { mode = 0o644, exclusive = false }: WriteFileAtomicOptions = {},
): Promise<void> {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let moved = false;
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (exclusive) {
      await link(tmp, file);
    } else {
      await rename(tmp, file);
      moved = true;
    }
  } finally {
    if (!moved) await rm(tmp, { force: true });
  }
  await syncDir(dir);
}

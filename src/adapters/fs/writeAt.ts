import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { mkdirDurable, syncDir } from './durable.js';
import { isAbsent } from './errno.js';
import { writeAll } from './writeAll.js';

/** chunks smaller than this are gathered into one write, so a part costs few syscalls */
const WRITE_BATCH = 1024 * 1024;

/**
 * Positional writes into a file that may not exist yet (created without truncation, so parts
 * written concurrently at other offsets stay), then fdatasync. A new file's directory entry is
 * synced too, so the part is durable once this resolves.
 */
export async function writeAtPath(path: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<{ bytesWritten: number }> {
  let created = false;
  let handle;
  try {
    handle = await open(path, constants.O_RDWR);
  } catch (error) {
    if (!isAbsent(error)) throw error;
    await mkdirDurable(dirname(path));
    handle = await open(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    created = true;
  }
  try {
    let position = offset;
    let batch: Uint8Array[] = [];
    let batched = 0;
    let inFlight: Promise<unknown> = Promise.resolve();
    const flush = async () => {
      const buffers = batch;
      const at = position;
      position += batched;
      batch = [];
      batched = 0;
      // one write in flight while the next batch is gathered: disk and hashing overlap
      await inFlight;
      // a short write is tried again, so a full disk surfaces as its errno (ENOSPC), not as a count
      inFlight = writeAll(handle, buffers, at);
      // marked handled now; the failure surfaces at the next await of inFlight
      inFlight.catch(() => {});
    };
    for await (const chunk of source) {
      batch.push(chunk);
      batched += chunk.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    if (batched > 0) await flush();
    await inFlight;
    await handle.datasync();
    if (created) await syncDir(dirname(path));
    return { bytesWritten: position - offset };
  } finally {
    await handle.close();
  }
}

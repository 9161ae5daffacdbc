import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import { syntheticItem } from './syntheticItem.js';

/**
 * Writes a signed ANS-104 item of exactly `size` bytes to `file` without holding it in memory, and
 * syncs it: left dirty, its GiB is written back while the first measurement runs, and whoever writes
 * then (the service, the baseline) is made to wait and to do part of that write-back on its own CPU.
 */
export async function writeLargeItem(file: string, size: number): Promise<{ id: string }> {
  const item = await syntheticItem(size);
  const out = createWriteStream(file);
  // each write waits until its bytes are written: the payload generator reuses its buffer
  const write = (bytes: Buffer) => new Promise<void>((resolve, reject) => out.write(bytes, (e) => (e ? reject(e) : resolve())));
  await write(item.header);
  for (const piece of item.payload()) await write(piece);
  out.end();
  await once(out, 'finish');
  const synced = await open(file, 'r+');
  try {
    await synced.datasync();
  } finally {
    await synced.close();
  }
  return { id: item.id };
}

/** bytes `start`..`end` (exclusive) of a file, as a stream */
export const fileRange = (file: string, start: number, end: number) => createReadStream(file, { start, end: end - 1, highWaterMark: 1 << 20 });

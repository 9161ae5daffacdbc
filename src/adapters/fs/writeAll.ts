import type { FileHandle } from 'node:fs/promises';

/**
 * Write `chunks` at `position` with one pwrite/pwritev, without copying them. libuv already loops over
 * short writes; a short count reaching us means the device stopped taking bytes, so the rest is tried
 * again, which surfaces the real error (ENOSPC, EIO) instead of silently losing bytes.
 */
export async function writeAll(handle: FileHandle, chunks: Uint8Array[], position: number): Promise<void> {
  let rest = chunks;
  let at = position;
  while (rest.length > 0) {
    const expected = rest.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    const [only] = rest;
    const { bytesWritten } = rest.length === 1 && only !== undefined ? await handle.write(only, 0, only.byteLength, at) : await handle.writev(rest, at);
    if (bytesWritten === expected) return;
    if (bytesWritten === 0) throw new Error(`write made no progress at offset ${at}`);
    rest = dropBytes(rest, bytesWritten);
    at += bytesWritten;
  }
}

function dropBytes(chunks: Uint8Array[], count: number): Uint8Array[] {
  let skip = count;
  const rest: Uint8Array[] = [];
  for (const chunk of chunks) {
    if (skip >= chunk.byteLength) {
      skip -= chunk.byteLength;
    } else {
      rest.push(skip === 0 ? chunk : chunk.subarray(skip));
      skip = 0;
    }
  }
  return rest;
}

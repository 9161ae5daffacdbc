import { randomUUID } from 'node:crypto';
import { lstat, mkdir, open, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  BlobNotFound,
  type BlobInfo,
  type BlobSlice,
  type BlobStore,
  type BlobWriter,
  type ByteRange,
  type ListedBlob,
  type OpenBlob,
} from '../../ports/blobStore.js';
import {
  dropComposed,
  isComposedDir,
  openComposed,
  partsWithin,
  readComposed,
  readComposedRange,
  replaceComposed,
  writeComposed,
  type FilePart,
} from './composed.js';
import { disk } from './diskFaults.js';
import { errnoCode, isAbsent } from './errno.js';
import { filesUnder } from './listing.js';
import { sweepTemp } from './sweep.js';
import { assertBlobKey, assertRangeWithin } from './validate.js';
import { FsBlobWriter } from './writer.js';
import { renameDurable } from './durable.js';
import { writeAtPath } from './writeAt.js';
import { writeAll } from './writeAll.js';
import { bestEffort } from '../../bestEffort.js';
import { gatheredWrites } from '../../gatheredWrites.js';

/**
 * Temp files live in `<root>/.tmp`: a key can never start with a dot, so no blob or prefix can
 * collide with it (a plain `tmp/` would clash with a key such as `tmp/x`).
 */
const TEMP_DIR = '.tmp';

/** Reads hand out 1 MiB chunks: 16 times fewer syscalls than the fs default of 64 KiB for big blobs. */
const READ_CHUNK = 1024 * 1024;
export interface FsBlobStoreOptions {
  root: string;
  /**
   * Leftovers in the temp directory older than this are deleted at open. Younger ones are kept,
   * because another process sharing the root may be writing them. 0 deletes all of them, which is
   * right only when this process is the store's single user. Default: one hour.
   */
  staleTempAfterMs?: number;
}

/**
 * The embedded blob store: `<root>/<key>` per committed blob, written by atomic rename. A disk that
 * is full, over quota, read-only or failing answers BlobStoreUnavailable (see `diskFaults.ts`).
 */
export async function openFsBlobStore(options: FsBlobStoreOptions): Promise<BlobStore> {
  const root = resolve(options.root);
  const tempDir = join(root, TEMP_DIR);
  await mkdir(tempDir, { recursive: true });
  await sweepTemp(tempDir, options.staleTempAfterMs ?? 60 * 60 * 1000);
  return new FsBlobStore(root, tempDir);
}

class FsBlobStore implements BlobStore {
  readonly #writers = new Set<FsBlobWriter>();
  #closed = false;

  constructor(
    private readonly root: string,
    private readonly tempDir: string,
  ) {}

  async createWriter(): Promise<BlobWriter> {
    this.#assertOpen();
    const temp = join(this.tempDir, randomUUID());
    const handle = await disk(() => open(temp, 'wx'));
    if (this.#closed) {
      // close() ran while the file was being created and could not abort a writer it did not know
      await handle.close();
      await unlink(temp);
      this.#assertOpen();
    }
    const writer = new FsBlobWriter(handle, { temp, pathOf: (key) => this.#pathOf(key), place: (from, to) => this.#place(from, to) }, (done) =>
      this.#writers.delete(done),
    );
    this.#writers.add(writer);
    return writer;
  }

  async put(key: string, source: AsyncIterable<Uint8Array>): Promise<BlobInfo> {
    // before taking a single byte from the source
    assertBlobKey(key);
    const writer = await this.createWriter();
    // A request's body comes in pieces of up to 64 KiB: gathered into batches of about a MiB, each
    // written with one pwritev rather than a syscall (and a round trip to libuv's thread) per piece
    const writes = gatheredWrites(writer);
    try {
      for await (const chunk of source) await writes.write(chunk);
      await writes.end();
      return await writer.commit(key);
    } catch (error) {
      await writes.release();
      await bestEffort(writer.abort(), 'the original failure is the one reported; a temp file left is swept later');
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const composed = await this.#composed(key);
    if (composed) {
      if (range !== undefined) assertRangeWithin(range, composed.size);
      return readComposedRange(key, composed.parts, range ?? { start: 0, end: composed.size - 1 });
    }
    const { handle, size } = await this.#openFile(key);
    try {
      if (range !== undefined) assertRangeWithin(range, size);
      return handle.createReadStream({ start: range?.start ?? 0, end: range?.end, highWaterMark: READ_CHUNK });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async open(key: string): Promise<OpenBlob> {
    const composed = await this.#composed(key);
    if (composed) return openComposed(key, composed.size, composed.parts);
    const { handle, size } = await this.#openFile(key);
    return {
      size,
      fd: handle.fd,
      read: async (into, position) => (await handle.read(into, 0, into.byteLength, position)).bytesRead,
      close: () => handle.close(),
    };
  }

  async writeAt(key: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<{ bytesWritten: number }> {
    const path = this.#checkedPath(key);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid offset ${offset}`);
    return disk(() => writeAtPath(path, offset, source));
  }

  async truncate(key: string, size: number): Promise<void> {
    const path = this.#checkedPath(key);
    const composed = await this.#composed(key);
    // a composed blob is never written: a shorter one is composed of its first `size` bytes
    if (composed) {
      if (composed.size > size) await this.compose(key, [{ key, start: 0, length: size }]);
      return;
    }
    let handle;
    try {
      handle = await open(path, 'r+');
    } catch (error) {
      if (isAbsent(error)) throw new BlobNotFound(key);
      throw error;
    }
    await disk(async () => {
      try {
        if ((await handle.stat()).size > size) {
          await handle.truncate(size);
          await handle.datasync();
        }
      } finally {
        await handle.close();
      }
    });
  }

  async compose(key: string, slices: readonly BlobSlice[]): Promise<BlobInfo> {
    const target = this.#checkedPath(key);
    const parts: FilePart[] = [];
    for (const slice of slices) parts.push(...(await this.#partsOf(slice)));
    const built = join(this.tempDir, randomUUID());
    try {
      // a composed blob there already changes in place: its key is never empty meanwhile
      if (await isComposedDir(target)) return { size: await disk(() => replaceComposed(target, parts)) };
      const size = await disk(() => writeComposed(built, parts));
      await disk(() => this.#place(built, target));
      return { size };
    } catch (error) {
      await bestEffort(dropComposed(built), 'the write failure is the one reported; a temp file left is swept later');
      // a source deleted since it was looked at: its link could not be made
      const gone = isAbsent(error) ? await this.#firstAbsent(slices) : undefined;
      if (gone !== undefined) throw new BlobNotFound(gone);
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.#checkedPath(from);
    const target = this.#checkedPath(to);
    // a directory is only a blob when it is a composed one (else it is a prefix of other blobs)
    if ((await bestEffort(lstat(source), 'a missing source fails the move'))?.isDirectory() && !(await isComposedDir(source))) throw new BlobNotFound(from);
    try {
      await disk(() => this.#place(source, target));
    } catch (error) {
      if (isAbsent(error) && !(await this.stat(from))) throw new BlobNotFound(from);
      throw error;
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const path = this.#checkedPath(key);
    try {
      const info = await stat(path);
      if (info.isFile()) return { size: info.size };
      const composed = info.isDirectory() ? await readComposed(path) : undefined;
      return composed && { size: composed.size };
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.#checkedPath(key);
    try {
      await disk(() => unlink(path));
    } catch (error) {
      // EISDIR: a composed blob, or the key is only a prefix of other blobs (no blob to delete)
      if (!isAbsent(error) && errnoCode(error) !== 'EISDIR') throw error;
      if (errnoCode(error) === 'EISDIR' && (await isComposedDir(path))) {
        // another delete of it may have moved it away first
        await this.#removeDir(path).catch((removing: unknown) => {
          if (!isAbsent(removing)) throw removing;
        });
      }
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    const dir = this.#checkedPath(prefix);
    try {
      // a blob named exactly `prefix` is not under `prefix/`
      if (!(await lstat(dir)).isDirectory() || (await isComposedDir(dir))) return;
      await this.#removeDir(dir);
    } catch (error) {
      if (!isAbsent(error)) throw error;
    }
  }

  list(prefix: string): AsyncIterable<ListedBlob> {
    return filesUnder(this.#checkedPath(prefix), prefix);
  }

  /** Aborts writers still open (their bytes were never promised to anyone); open reads finish. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#writers].map((writer) => writer.abort()));
  }

  /**
   * Moved away first, so everything in the directory disappears at once and a crash halfway through
   * the removal leaves nothing visible (the temp sweep finishes the job).
   */
  async #removeDir(dir: string): Promise<void> {
    const trash = join(this.tempDir, `${randomUUID()}.deleted`);
    await disk(() => rename(dir, trash));
    await disk(() => rm(trash, { recursive: true, force: true }));
  }

  /**
   * Puts the file or composed blob `from` at `to` durably, replacing the blob there, so that `to` is
   * the old blob or the new one at every moment, a crash included (a receipted item's key is never
   * empty). One rename does it when both are files, or `to` is free. A blob of the other kind, or a
   * composed one over a composed one, cannot be replaced by a rename (a file and a directory, or a
   * directory that is not empty), so:
   * - a file over a composed blob becomes that blob's one part, changed in place (its manifest
   *   renamed over the old one);
   * - a composed blob over a composed blob gives its parts to the other, changed in place;
   * - a composed blob over a file is written out as a file (its bytes copied: only a repair or racing
   *   identical uploads put both kinds under one key) and renamed over it.
   * The source is removed afterwards; a crash before that leaves it behind (in the temp directory, or
   * under a key the caller removes), never a key without its blob.
   */
  async #place(from: string, to: string): Promise<void> {
    try {
      await renameDurable(from, to);
      return;
    } catch (error) {
      const code = errnoCode(error);
      if (code !== 'EISDIR' && code !== 'ENOTDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      const source = (await isComposedDir(from)) ? await readComposed(from) : undefined;
      if (await isComposedDir(to)) {
        const parts = source?.parts ?? [{ path: from, start: 0, length: (await stat(from)).size }];
        await replaceComposed(to, parts);
      } else if (source && (await bestEffort(lstat(to), 'no file there: the rename failure stands'))?.isFile()) {
        const copy = join(this.tempDir, randomUUID());
        await this.#writeOut(source.size, source.parts, copy);
        await renameDurable(copy, to);
      } else {
        throw error;
      }
      if (source) await this.#removeDir(from);
      else await unlink(from);
    }
  }

  /** the bytes of a composed blob's `parts` written to the new file `path`, synced */
  async #writeOut(size: number, parts: readonly FilePart[], path: string): Promise<void> {
    const handle = await open(path, 'wx');
    try {
      let at = 0;
      for await (const chunk of readComposedRange(path, parts, { start: 0, end: size - 1 })) {
        await writeAll(handle, [chunk as Buffer], at);
        at += (chunk as Buffer).byteLength;
      }
      await handle.datasync();
    } catch (error) {
      await bestEffort(handle.close(), 'the write failure is the one reported');
      await rm(path, { force: true });
      throw error;
    }
    await handle.close();
  }

  /** the runs of files holding `slice`'s bytes; those of a composed source are its own parts' */
  async #partsOf(slice: BlobSlice): Promise<FilePart[]> {
    const path = this.#checkedPath(slice.key);
    const { start, length } = slice;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < 0 || length < 0) {
      throw new RangeError(`invalid slice ${start}+${length} of ${slice.key}`);
    }
    const composed = await this.#composed(slice.key);
    const size = composed ? composed.size : (await this.stat(slice.key))?.size;
    if (size === undefined) throw new BlobNotFound(slice.key);
    if (start + length > size) throw new RangeError(`slice ${start}+${length} is outside ${slice.key}, a blob of ${size} bytes`);
    if (length === 0) return [];
    return composed ? partsWithin(composed.parts, start, start + length - 1) : [{ path, start, length }];
  }

  async #firstAbsent(slices: readonly BlobSlice[]): Promise<string | undefined> {
    for (const slice of slices) if (!(await this.stat(slice.key))) return slice.key;
    return undefined;
  }

  /** the parts of the composed blob `key`, or undefined when `key` is a file or absent */
  async #composed(key: string): Promise<{ size: number; parts: FilePart[] } | undefined> {
    const path = this.#checkedPath(key);
    try {
      if (!(await lstat(path)).isDirectory()) return undefined;
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
    return readComposed(path);
  }

  /** the open handle pins this version: a commit replacing the key meanwhile does not mix bytes in */
  async #openFile(key: string): Promise<{ handle: FileHandle; size: number }> {
    const path = this.#checkedPath(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isAbsent(error)) throw new BlobNotFound(key);
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new BlobNotFound(key);
      return { handle, size: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  #checkedPath(key: string): string {
    this.#assertOpen();
    assertBlobKey(key);
    return this.#pathOf(key);
  }

  /** only for keys already validated: their segments cannot climb out of the root */
  #pathOf(key: string): string {
    return join(this.root, key);
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('blob store is closed');
  }
}

import { join } from 'node:path';
import { Readable } from 'node:stream';
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
import { openSmallBlobTable, type SmallBlobTable } from '../sqlite/smallBlobTable.js';
import { asError, StagedBlobWriter } from '../stagedBlobWriter.js';
import { openFsBlobStore, type FsBlobStoreOptions } from './blobStore.js';
import { assertBlobKey, assertRangeWithin } from './validate.js';

/** `<root>/.small-blobs.db`: a key never starts with a dot, so no blob or prefix can collide with it */
export const SMALL_BLOB_FILE = '.small-blobs.db';

/** rows of the small-blob table listed at a time */
const LIST_PAGE = 1000;

export interface TieredBlobStoreOptions extends FsBlobStoreOptions {
  /** a blob of at most this many bytes is a row of the small-blob file; a larger one is a file */
  smallBlobMaxBytes: number;
}

/**
 * The embedded blob store in two tiers: a blob of at most `smallBlobMaxBytes` is a row of one SQLite
 * file (`<root>/.small-blobs.db`, smallBlobTable.ts), a larger one a file of the fs store
 * (blobStore.ts). A small upload then costs no file of its own (create, write, sync, rename, sync
 * its directory: many times the CPU of a row whose log sync it shares with the others of
 * its turn). A writer keeps the bytes in memory
 * until they pass the limit, then goes on into a file.
 *
 * One rule makes the two tiers one store: a key's row, when it has one, is its blob, and a file at
 * the same path is garbage nobody sees. So:
 * - a small commit writes the row (the switch, one commit) and leaves any file there;
 * - a file placed under a key that has a row (a large commit, a compose, a move, a writeAt) is placed
 *   first, unseen, and the row deleted after (the switch), only if it is still the generation seen
 *   before: a row written meanwhile is newer and stays;
 * - a row is never deleted while a file it hides is still there (delete and deletePrefix remove the
 *   files first; a move of a row removes the file under its old key first), so nothing hidden comes back;
 * - a move of a file onto a key that has a row composes the new blob there first (sharing the file's
 *   bytes), switches, then deletes the old key: at every moment, a crash included, each key holds one
 *   whole version, old or new, never none, as a rename gives in the fs store.
 * Operations on one key are taken one at a time in this process (a move or compose holds every key it
 * touches, in key order); two processes sharing the store race only as two writers of one file do.
 */
export async function openTieredBlobStore(options: TieredBlobStoreOptions): Promise<BlobStore> {
  const { smallBlobMaxBytes, ...fsOptions } = options;
  if (!Number.isSafeInteger(smallBlobMaxBytes) || smallBlobMaxBytes < 0) throw new RangeError(`invalid smallBlobMaxBytes ${smallBlobMaxBytes}`);
  const files = await openFsBlobStore(fsOptions);
  if (!files.compose || !files.open) throw new Error('the fs blob store composes and opens');
  let table: SmallBlobTable;
  try {
    table = openSmallBlobTable(join(options.root, SMALL_BLOB_FILE));
  } catch (error) {
    await files.close();
    throw error;
  }
  return new TieredBlobStore(files as FileTier, table, smallBlobMaxBytes);
}

type FileTier = BlobStore & Required<Pick<BlobStore, 'compose' | 'open'>>;

class TieredBlobStore implements BlobStore {
  readonly #writers = new Set<TieredBlobWriter>();
  readonly #locks = new KeyLocks();
  #closed = false;

  constructor(
    private readonly files: FileTier,
    private readonly table: SmallBlobTable,
    private readonly maxSmall: number,
  ) {}

  async createWriter(): Promise<BlobWriter> {
    this.#assertOpen();
    const writer = new TieredBlobWriter(this.maxSmall, {
      spill: () => this.files.createWriter(),
      commitSmall: (key, bytes) => this.#locks.run([key], () => this.#putRow(key, bytes)),
      commitFile: (key, file) => this.#locks.run([key], () => this.#placeFile(key, () => file.commit(key))),
      done: (done) => this.#writers.delete(done),
    });
    this.#writers.add(writer);
    return writer;
  }

  async put(key: string, source: AsyncIterable<Uint8Array>): Promise<BlobInfo> {
    assertBlobKey(key);
    this.#assertOpen();
    const iterator = source[Symbol.asyncIterator]();
    const head: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done && fitsRow(size, this.maxSmall)) return await this.#locks.run([key], () => this.#putRow(key, Buffer.concat(head, size)));
        if (next.done) break;
        head.push(next.value);
        size += next.value.byteLength;
        if (!fitsRow(size, this.maxSmall)) break;
      }
    } catch (error) {
      await iterator.return?.();
      throw error;
    }
    // too large for a row: what was read, then the rest of the source, into a file
    async function* whole(): AsyncGenerator<Uint8Array> {
      try {
        yield* head;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      } finally {
        await iterator.return?.();
      }
    }
    return this.#locks.run([key], () => this.#placeFile(key, () => this.files.put(key, whole())));
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const row = this.#row(key);
    if (row === undefined) return this.files.read(key, range);
    if (range !== undefined) assertRangeWithin(range, row.bytes.length);
    const bytes = range === undefined ? row.bytes : row.bytes.subarray(range.start, range.end + 1);
    return Readable.from(bytes.length === 0 ? [] : [bytes], { objectMode: false });
  }

  async open(key: string): Promise<OpenBlob> {
    const row = this.#row(key);
    if (row === undefined) return this.files.open(key);
    const { bytes } = row;
    return {
      size: bytes.length,
      read: async (into, position) => (position >= bytes.length ? 0 : bytes.copy(into, 0, position, Math.min(bytes.length, position + into.byteLength))),
      close: async () => {},
    };
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const head = this.#head(key);
    if (head !== undefined) return { size: head.size };
    return this.files.stat(key);
  }

  async writeAt(key: string, offset: number, source: AsyncIterable<Uint8Array>): Promise<{ bytesWritten: number }> {
    assertBlobKey(key);
    return this.#locks.run([key], async () => {
      // a blob written in place is a file: a row there becomes one first, with the same bytes
      await this.#toFile(key);
      return this.files.writeAt(key, offset, source);
    });
  }

  async truncate(key: string, size: number): Promise<void> {
    assertBlobKey(key);
    await this.#locks.run([key], async () => {
      for (;;) {
        const head = this.#head(key);
        if (head === undefined) return this.files.truncate(key, size);
        // another process wrote the row meanwhile: look again
        if ((await this.table.truncate(key, head.gen, size)) !== undefined) return;
      }
    });
  }

  async compose(key: string, slices: readonly BlobSlice[]): Promise<BlobInfo> {
    assertBlobKey(key);
    for (const slice of slices) assertBlobKey(slice.key);
    return this.#locks.run([key, ...slices.map((s) => s.key)], async () => {
      const total = slices.reduce((sum, s) => sum + (Number.isSafeInteger(s.length) ? s.length : 0), 0);
      if (fitsRow(total, this.maxSmall)) return this.#putRow(key, await this.#bytesOf(slices, total));
      // the files compose (their bytes are linked, not copied): rows among the sources become files first
      for (const source of new Set(slices.map((s) => s.key))) await this.#toFile(source);
      return this.#placeFile(key, () => this.files.compose(key, slices));
    });
  }

  async move(from: string, to: string): Promise<void> {
    assertBlobKey(from);
    assertBlobKey(to);
    await this.#locks.run([from, to], async () => {
      for (;;) {
        const source = this.#head(from);
        if (source !== undefined) {
          // the file its row hid goes first, so that it does not come back as `from`
          await this.files.delete(from);
          if ((await this.table.move(from, source.gen, to)) !== undefined) return;
          continue; // another process wrote `from` meanwhile: look again
        }
        const target = this.#head(to);
        if (target === undefined) return this.files.move(from, to);
        // `to` holds a row: the file's blob is composed under `to` (sharing its bytes), unseen until the
        // row goes, and `from` deleted after: a crash leaves `to` old or new and `from` still there
        const size = (await this.files.stat(from))?.size;
        if (size === undefined) throw new BlobNotFound(from);
        await this.files.compose(to, [{ key: from, start: 0, length: size }]);
        await this.table.deleteIf(to, target.gen);
        await this.files.delete(from);
        return;
      }
    });
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.#locks.run([key], async () => {
      const head = this.#head(key);
      // the file first: a row deleted first would show the file it hid
      await this.files.delete(key);
      if (head !== undefined) await this.table.deleteIf(key, head.gen);
    });
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobKey(prefix);
    this.#assertOpen();
    // rows written from now on are not this delete's: they come after it
    const seen = this.table.lastGen();
    await this.files.deletePrefix(prefix);
    const [low, high] = rangeOf(prefix);
    await this.table.deleteRange(low, high, seen);
  }

  list(prefix: string): AsyncIterable<ListedBlob> {
    // refused at the call, as the fs store refuses, not at the first read
    assertBlobKey(prefix);
    this.#assertOpen();
    return this.#listed(prefix);
  }

  async *#listed(prefix: string): AsyncGenerator<ListedBlob> {
    const [low, high] = rangeOf(prefix);
    for (let after = ''; ;) {
      const page = this.table.page(low, high, after, LIST_PAGE);
      yield* page;
      if (page.length < LIST_PAGE) break;
      after = page[page.length - 1]!.key;
    }
    for await (const blob of this.files.list(prefix)) {
      // a file under a key that has a row is garbage the row hides
      if (this.table.head(blob.key) === undefined) yield blob;
    }
  }

  async probeWrite(): Promise<void> {
    await this.table.probeWrite();
    const writer = await this.files.createWriter();
    try {
      await writer.write(PROBE_BYTES);
    } finally {
      await writer.abort();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#writers].map((writer) => writer.abort()));
    await this.files.close();
    await this.table.close();
  }

  /** the row is the blob: written in one commit, whatever file is there stays hidden under it */
  async #putRow(key: string, bytes: Buffer): Promise<BlobInfo> {
    this.#assertOpen();
    await this.table.put(key, bytes);
    return { size: bytes.length };
  }

  /** `place` puts a file at `key`, unseen while a row is there; then that row goes, if no other write replaced it */
  async #placeFile(key: string, place: () => Promise<BlobInfo>): Promise<BlobInfo> {
    const hidden = this.#head(key);
    const info = await place();
    if (hidden !== undefined) await this.table.deleteIf(key, hidden.gen);
    return info;
  }

  /** a row at `key` becomes a file of the same bytes (nothing when it has none) */
  async #toFile(key: string): Promise<void> {
    for (;;) {
      const row = this.#row(key);
      if (row === undefined) return;
      await this.files.put(key, only(row.bytes));
      // another process wrote the row meanwhile: its bytes are the ones to keep
      if (await this.table.deleteIf(key, row.gen)) return;
    }
  }

  /** the bytes of `slices` (`total` of them, a row's worth at most), checked as the fs store checks a compose's */
  async #bytesOf(slices: readonly BlobSlice[], total: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (const { key, start, length } of slices) {
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < 0 || length < 0) {
        throw new RangeError(`invalid slice ${start}+${length} of ${key}`);
      }
      const row = this.#row(key);
      const size = row?.bytes.length ?? (await this.files.stat(key))?.size;
      if (size === undefined) throw new BlobNotFound(key);
      if (start + length > size) throw new RangeError(`slice ${start}+${length} is outside ${key}, a blob of ${size} bytes`);
      if (length === 0) continue;
      if (row !== undefined) parts.push(row.bytes.subarray(start, start + length));
      else for await (const chunk of await this.files.read(key, { start, end: start + length - 1 })) parts.push(chunk as Buffer);
    }
    return Buffer.concat(parts, total);
  }

  #row(key: string) {
    assertBlobKey(key);
    this.#assertOpen();
    return this.table.get(key);
  }

  #head(key: string) {
    assertBlobKey(key);
    this.#assertOpen();
    return this.table.head(key);
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('blob store is closed');
  }
}

const PROBE_BYTES = new Uint8Array(1);

async function* only(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** whether a blob of `size` bytes is a row: a limit of 0 makes none */
const fitsRow = (size: number, maxSmall: number): boolean => maxSmall > 0 && size <= maxSmall;

/** the keys under `prefix/`: from `prefix/` up to `prefix0` ('0' follows '/'), in SQLite's byte order */
const rangeOf = (prefix: string): [string, string] => [`${prefix}/`, `${prefix}0`];

interface WriterHost {
  spill(): Promise<BlobWriter>;
  commitSmall(key: string, bytes: Buffer): Promise<BlobInfo>;
  commitFile(key: string, file: BlobWriter): Promise<BlobInfo>;
  done(writer: TieredBlobWriter): void;
}

/**
 * Holds the bytes (copies: the caller may reuse its buffers) until they pass the limit, then writes
 * them and everything after to a file writer of the fs store. Writes are taken in call order: one
 * that spills is awaited by the ones after it. Once spilled and caught up, a write goes straight to
 * the file writer, which keeps call order itself: chunks given together then go out together (one
 * pwritev), where a chain of writes each awaiting the last would make a syscall of each.
 */
class TieredBlobWriter extends StagedBlobWriter {
  #held: Buffer[] = [];
  #file: BlobWriter | undefined;
  #tail: Promise<void> = Promise.resolve();
  /** writes chained on `#tail` that have not reached the file writer yet */
  #chained = 0;

  constructor(
    private readonly maxSmall: number,
    private readonly host: WriterHost,
  ) {
    super();
  }

  write(chunk: Uint8Array): Promise<void> {
    const unusable = this.unusable();
    if (unusable !== undefined) return Promise.reject(unusable);
    if (chunk.byteLength === 0) return this.#tail;
    const file = this.#chained === 0 ? this.#file : undefined;
    const written = file ? this.#direct(file, chunk) : this.#chain(chunk);
    this.#tail = written.catch((error: unknown) => {
      this.failure ??= error;
    });
    return written;
  }

  /** the file writer ends its writes in call order: the last one's end (`#tail`) is that of all before it */
  async #direct(file: BlobWriter, chunk: Uint8Array): Promise<void> {
    await file.write(chunk);
    this.size += chunk.byteLength;
  }

  #chain(chunk: Uint8Array): Promise<void> {
    this.#chained += 1;
    return this.#tail.then(() => this.#write(chunk)).finally(() => (this.#chained -= 1));
  }

  async #write(chunk: Uint8Array): Promise<void> {
    if (this.failure !== undefined) throw asError(this.failure);
    if (this.#file === undefined && fitsRow(this.size + chunk.byteLength, this.maxSmall)) {
      this.#held.push(Buffer.from(chunk));
      this.size += chunk.byteLength;
      return;
    }
    if (this.#file === undefined) {
      this.#file = await this.host.spill();
      for (const held of this.#held.splice(0)) await this.#file.write(held);
    }
    await this.#file.write(chunk);
    this.size += chunk.byteLength;
  }

  protected async publish(key: string): Promise<number> {
    await this.#tail;
    if (this.failure !== undefined) throw asError(this.failure);
    // an empty blob when no row is made (a limit of 0)
    if (this.#file === undefined && !fitsRow(this.size, this.maxSmall)) this.#file = await this.host.spill();
    if (this.#file !== undefined) return (await this.host.commitFile(key, this.#file)).size;
    const bytes = Buffer.concat(this.#held, this.size);
    const info = await this.host.commitSmall(key, bytes);
    this.#held = [];
    return info.size;
  }

  protected async discard(): Promise<void> {
    await this.#tail;
    this.#held = [];
    await this.#file?.abort();
  }

  protected done(): void {
    this.host.done(this);
  }
}

/**
 * Operations on one key one at a time, in call order; one on several keys takes them in key order,
 * so two such never wait for each other in a circle.
 */
class KeyLocks {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const key of [...new Set(keys)].sort()) releases.push(await this.#take(key));
      return await task();
    } finally {
      for (const release of releases) release();
    }
  }

  #take(key: string): Promise<() => void> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    return previous.then(() => () => {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
  }
}

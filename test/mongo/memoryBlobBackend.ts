import { randomBytes } from 'node:crypto';
import type { BlobBackend, BlobPointer, LayerUpload } from '../../src/adapters/layered/blobBackend.js';
import type { Layer } from '../../src/adapters/layered/blobPlan.js';
import { underPrefix } from '../../src/adapters/mongo/blobPrefix.js';

/**
 * TEST DOUBLE, test code only: the blob backend in memory, with the semantics the GridFS backend
 * gets from MongoDB (each call atomic on its own, a layer listed only once finished, temporary
 * names until published, reads of a missing file failing). Every call yields to the event loop
 * first, so concurrent callers interleave as they would over the network.
 */
export interface MemoryFile {
  id: string;
  name: string;
  blob: string;
  seq: number;
  offset: number;
  bytes: Buffer;
  uploadDate: Date;
}

/** GridFS's default chunk size: reads come back in pieces of this size */
const PIECE = 255 * 1024;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const copy = (pointer: BlobPointer): BlobPointer => ({ ...pointer, cuts: pointer.cuts.map((cut) => ({ ...cut })) });

export class MemoryBlobBackend implements BlobBackend {
  readonly pointers = new Map<string, BlobPointer>();
  /** when each key last changed, as the GridFS backend keeps it on the pointer */
  readonly changedAt = new Map<string, number>();
  readonly files = new Map<string, MemoryFile>();
  /** chunks of uploads not finished yet, by upload id */
  readonly pending = new Map<string, Buffer[]>();
  closed = false;
  now = () => new Date();

  async pointer(key: string) {
    await tick();
    const pointer = this.pointers.get(key);
    return pointer && copy(pointer);
  }

  async reserveLayer(key: string) {
    await tick();
    let pointer = this.pointers.get(key);
    if (pointer === undefined) {
      pointer = { blob: this.newBlobId(), seq: 0, cuts: [] };
      this.pointers.set(key, pointer);
    }
    pointer.seq += 1;
    this.changedAt.set(key, this.now().getTime());
    return { blob: pointer.blob, seq: pointer.seq };
  }

  async replacePointer(key: string, pointer: BlobPointer) {
    await tick();
    const before = this.pointers.get(key);
    this.pointers.set(key, copy(pointer));
    this.changedAt.set(key, this.now().getTime());
    return before;
  }

  async removePointer(key: string, blob?: string) {
    await tick();
    const pointer = this.pointers.get(key);
    if (pointer === undefined || (blob !== undefined && pointer.blob !== blob)) return undefined;
    this.pointers.delete(key);
    this.changedAt.delete(key);
    return pointer;
  }

  async appendCut(key: string, blob: string, size: number) {
    await tick();
    const pointer = this.pointers.get(key);
    if (pointer === undefined || pointer.blob !== blob) return undefined;
    pointer.seq += 1;
    pointer.cuts.push({ seq: pointer.seq, size });
    this.changedAt.set(key, this.now().getTime());
    return pointer.seq;
  }

  async *keysUnder(prefix: string) {
    await tick();
    const pattern = underPrefix(prefix);
    for (const [key, pointer] of [...this.pointers].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (pattern.test(key)) yield { key, blob: pointer.blob, changedAt: this.changedAt.get(key) ?? 0 };
    }
  }

  async isReferenced(blob: string) {
    await tick();
    return [...this.pointers.values()].some((pointer) => pointer.blob === blob);
  }

  newBlobId() {
    return randomBytes(12).toString('hex');
  }

  createLayer(blob: string, seq: number, offset: number, temporary: boolean): LayerUpload {
    const id = this.newBlobId();
    const chunks: Buffer[] = [];
    this.pending.set(id, chunks);
    let state: 'open' | 'finished' | 'aborted' = 'open';
    return {
      id,
      write: async (chunk) => {
        await tick();
        if (state !== 'open') throw new Error(`upload ${state}`);
        chunks.push(Buffer.from(chunk));
      },
      finish: async () => {
        await tick();
        if (state !== 'open') throw new Error(`upload ${state}`);
        state = 'finished';
        this.pending.delete(id);
        const bytes = Buffer.concat(chunks);
        const name = `${temporary ? '.tmp/' : ''}${blob}/${seq}`;
        this.files.set(id, { id, name, blob, seq, offset, bytes, uploadDate: this.now() });
        return bytes.length;
      },
      abort: async () => {
        await tick();
        state = 'aborted';
        this.pending.delete(id);
        this.files.delete(id);
      },
    };
  }

  async layers(blob: string, offsets: { min?: number; max?: number } = {}): Promise<Layer[]> {
    await tick();
    return [...this.files.values()]
      .filter((f) => f.blob === blob && f.offset >= (offsets.min ?? -Infinity) && f.offset <= (offsets.max ?? Infinity))
      .map((f) => ({ id: f.id, offset: f.offset, length: f.bytes.length, seq: f.seq }));
  }

  async publishLayer(id: string, blob: string, seq: number) {
    await tick();
    const file = this.files.get(id);
    if (file) file.name = `${blob}/${seq}`;
  }

  async deleteLayers(ids: readonly string[]) {
    await tick();
    for (const id of ids) this.files.delete(id);
  }

  async *readLayer(id: string, start: number, end: number) {
    await tick();
    const file = this.files.get(id);
    if (file === undefined) throw new Error(`FileNotFound: file ${id} was not found`);
    // the driver refuses these too: a plan must stay within its layers
    if (start < 0 || end > file.bytes.length || start > end) throw new RangeError(`range ${start}-${end} of a file of ${file.bytes.length}`);
    for (let at = start; at < end; at += PIECE) {
      await tick();
      if (!this.files.has(id)) throw new Error(`ChunkIsMissing: file ${id} was deleted during the read`);
      yield file.bytes.subarray(at, Math.min(at + PIECE, end));
    }
  }

  async *staleTemporaryLayers(before: Date) {
    await tick();
    for (const file of [...this.files.values()]) {
      if (file.name.startsWith('.tmp/') && file.uploadDate < before) yield { id: file.id, blob: file.blob, seq: file.seq };
    }
  }

  async close() {
    this.closed = true;
  }

  /** files by name, for tests that look at what is stored */
  names(): string[] {
    return [...this.files.values()].map((f) => f.name).sort();
  }
}

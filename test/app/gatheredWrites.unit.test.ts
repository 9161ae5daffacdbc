import { expect } from 'chai';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTieredBlobStore } from '../../src/adapters/fs/tieredBlobStore.js';
import { gatheredWrites } from '../../src/gatheredWrites.js';
import type { BlobStore, BlobWriter } from '../../src/ports/blobStore.js';

const KiB = 1024;
const PIECE = 64 * KiB;
const pieces = (count: number) => Array.from({ length: count }, (_, i) => new Uint8Array(PIECE).fill(i));

/** a writer whose writes end when the test says, recording each write and when it was given */
function heldWriter() {
  const given: { chunk: Uint8Array; tick: number; done: () => void }[] = [];
  let tick = 0;
  const writer: BlobWriter = {
    write: (chunk) => new Promise<void>((resolve) => given.push({ chunk, tick, done: resolve })),
    bytesWritten: 0,
    commit: () => Promise.reject(new Error('not used')),
    abort: () => Promise.resolve(),
  };
  return { writer, given, nextTick: () => (tick += 1) };
}

describe('gathered writes', () => {
  it("hands the source's own pieces over in bursts of a batch, one burst being written while the next is gathered", async () => {
    const { writer, given, nextTick } = heldWriter();
    const writes = gatheredWrites(writer, 4 * PIECE);
    const source = pieces(10);
    for (const piece of source.slice(0, 4)) await writes.write(piece);
    // the first batch is given in one burst
    expect(given.map((g) => g.tick)).to.deep.equal([0, 0, 0, 0]);
    nextTick();
    for (const piece of source.slice(4, 7)) await writes.write(piece);
    expect(given).to.have.length(4);
    // the second batch is full: it waits for the first to be written
    let tookEighth = false;
    const eighth = writes.write(source[7]!).then(() => (tookEighth = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(tookEighth).to.equal(false);
    expect(given).to.have.length(4);
    for (const g of given) g.done();
    await eighth;
    expect(given.map((g) => g.tick)).to.deep.equal([0, 0, 0, 0, 1, 1, 1, 1]);
    nextTick();
    await writes.write(source[8]!);
    await writes.write(source[9]!);
    for (const g of given.slice(4)) g.done();
    const ended = writes.end();
    await new Promise((resolve) => setImmediate(resolve));
    for (const g of given.slice(8)) g.done();
    await ended;
    // the very pieces of the source, in order, no copies
    expect(given.map((g) => g.chunk)).to.have.ordered.members(source);
    expect(given.every((g, i) => g.chunk === source[i])).to.equal(true);
    expect(given.map((g) => g.tick)).to.deep.equal([0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
  });

  describe('into a file of the tiered store', () => {
    let root: string;
    let store: BlobStore;
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), 'gathered-'));
      store = await openTieredBlobStore({ root, smallBlobMaxBytes: 64 * KiB });
    });
    afterEach(async () => {
      await store.close();
      await rm(root, { recursive: true, force: true });
    });

    it('writes each batch with one pwritev, past the row limit as well, and stores the bytes exactly', async () => {
      // every positioned write of every file handle, while the test runs
      const probe = await open(join(root, 'probe'), 'w');
      const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown>; writev: (...args: unknown[]) => Promise<unknown> };
      await probe.close();
      const { write, writev } = proto;
      const calls: number[] = [];
      proto.write = function (this: unknown, ...args: unknown[]) {
        calls.push(1);
        return write.apply(this, args);
      };
      proto.writev = function (this: unknown, ...args: unknown[]) {
        calls.push((args[0] as unknown[]).length);
        return writev.apply(this, args);
      };
      const source = pieces(48);
      try {
        const writer = await store.createWriter();
        const writes = gatheredWrites(writer, 16 * PIECE);
        for (const piece of source) await writes.write(piece);
        await writes.end();
        await writer.commit('items/gathered');
      } finally {
        proto.write = write;
        proto.writev = writev;
      }
      // the first batch spills out of the row: its pieces go one after the other as the store moves
      // to a file; from then on the file writer takes each batch as one pwritev
      expect(calls).to.deep.equal([...Array<number>(16).fill(1), 16, 16]);
      const stored = await readFile(join(root, 'items', 'gathered'));
      expect(Buffer.compare(stored, Buffer.concat(source))).to.equal(0);
    });
  });
});

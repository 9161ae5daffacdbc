import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { BlobHashingError, createBlobHasher, type BlobHasher } from '../../src/crypto/blobHasher.js';
import type { BlobStore, BlobWriter } from '../../src/ports/blobStore.js';
import { heldHashWorkers } from '../support/heldHashWorkers.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';

const KiB = 1024;
const PIECE = 64 * KiB;
const PIECES = 4;
const CHUNK = 64 * KiB;

describe('receiving an item with its SHA-256 on a worker thread', function () {
  this.timeout(120_000);
  let root: string;
  let blobStore: BlobStore;
  let hasher: BlobHasher | undefined;
  let item: DataItem;
  let raw: Buffer;

  before(async () => {
    item = await itemOfSize(signers.arweave(), 16 * 1024 * 1024 + 123);
    raw = item.getRaw();
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'receive-hashing-'));
    blobStore = await openFsBlobStore({ root });
  });
  afterEach(async () => {
    await hasher?.close();
    hasher = undefined;
    await blobStore.close();
    await rm(root, { recursive: true, force: true });
  });

  /** the item in chunks of CHUNK bytes; `check` runs before each chunk is handed out */
  async function* chunks(check: (pulled: number) => void = () => {}) {
    for (let at = 0; at < raw.length; at += CHUNK) {
      check(at);
      yield raw.subarray(at, at + CHUNK);
    }
  }

  it('stops reading its source while the hasher is behind: it reads at most its pieces and one chunk ahead of what was hashed', async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, inlineBelow: 0, pieceBytes: PIECE, piecesPerSession: PIECES, startWorker: workers.start });
    workers.hold();
    // the worker gets a piece only once the session has all of its pieces out (as far behind as it
    // can be), or once the session asked for its digest (no more pieces to come)
    const behind = setInterval(() => {
      if (workers.held.length >= PIECES || workers.held.some((entry) => entry.request.type === 'digest')) workers.releaseOne();
    }, 1);
    let furthestAhead = 0;
    try {
      const received = await receiveDataItem(
        chunks((pulled) => (furthestAhead = Math.max(furthestAhead, pulled - workers.releasedBytes()))),
        { blobStore, maxSize: raw.length, hasher },
      );
      workers.releaseAll();
      expect(received.sha256).to.equal(createHash('sha256').update(raw).digest('hex'));
      await received.discard();
    } finally {
      clearInterval(behind);
      workers.releaseAll();
    }
    expect(furthestAhead).to.be.at.most(PIECES * PIECE + CHUNK);
    // it did run ahead as far as the pieces let it: the bound is what stopped it
    expect(furthestAhead).to.be.at.least(PIECES * PIECE);
  });

  it('fails with BlobHashingError when the worker dies mid-item, and leaves nothing in the blob store', async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, startWorker: workers.start, log: () => {} });
    let killed: Promise<number> | undefined;
    const receiving = receiveDataItem(
      chunks((pulled) => {
        if (pulled >= 2 * 1024 * 1024 && !killed) killed = workers.started[0]!.terminate();
      }),
      { blobStore, maxSize: raw.length, hasher },
    );
    const failure = await receiving.then(
      () => undefined,
      (error: unknown) => error,
    );
    await killed;
    expect(failure).to.be.instanceOf(BlobHashingError);
    expect(await readdir(root, { recursive: true })).to.deep.equal(['.tmp']);
  });

  /** the blob store, its writers recording every chunk they are handed and how far behind their writes are */
  function recordingStore() {
    const handed: Uint8Array[] = [];
    let unwritten = 0;
    let mostUnwritten = 0;
    const store: BlobStore = Object.create(blobStore, {
      createWriter: {
        value: async () => {
          const writer = await blobStore.createWriter();
          const recording: BlobWriter = {
            write: (chunk) => {
              handed.push(chunk);
              unwritten += chunk.byteLength;
              mostUnwritten = Math.max(mostUnwritten, unwritten);
              return writer.write(chunk).finally(() => (unwritten -= chunk.byteLength));
            },
            get bytesWritten() {
              return writer.bytesWritten;
            },
            commit: (key) => writer.commit(key),
            abort: () => writer.abort(),
          };
          return recording;
        },
      },
    });
    return { store, handed, mostUnwritten: () => mostUnwritten };
  }

  it("hands the source's own chunks to the writer, no copies, at most a MiB and a chunk unwritten, and stores the bytes exactly", async () => {
    const given: Uint8Array[] = [];
    async function* source() {
      for await (const chunk of chunks()) {
        given.push(chunk);
        yield chunk;
      }
    }
    const { store, handed, mostUnwritten } = recordingStore();
    const received = await receiveDataItem(source(), { blobStore: store, maxSize: raw.length });
    expect(received.sha256).to.equal(createHash('sha256').update(raw).digest('hex'));
    expect(received.verified.id).to.equal(item.id);
    await received.commit(item.id);
    const stored: Buffer[] = [];
    for await (const piece of await blobStore.read(item.id)) stored.push(piece as Buffer);
    expect(Buffer.compare(Buffer.concat(stored), raw)).to.equal(0);
    expect(handed).to.have.length(given.length);
    expect(handed.every((chunk, i) => chunk === given[i])).to.equal(true);
    expect(mostUnwritten()).to.be.at.most(1024 * 1024 + CHUNK);
  });
});

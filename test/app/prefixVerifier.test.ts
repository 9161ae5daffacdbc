import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidDataItem } from '../../src/domain/errors.js';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { createPrefixVerifier, type PrefixVerifier } from '../../src/app/multipart/prefixVerifier.js';
import { createBlobHasher, type BlobHasher } from '../../src/crypto/blobHasher.js';
import { newChunkKey } from '../../src/domain/upload/ids.js';
import type { Chunk } from '../../src/domain/upload/state.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { heldHashWorkers } from '../support/heldHashWorkers.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { eventually } from '../support/eventually.js';

const KiB = 1024;
const CHUNK = 64 * KiB;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** the file store, with every blob the verifier opens listed in order, and the bytes read through them counted */
async function watchedStore(root: string) {
  const store = await openFsBlobStore({ root });
  const opened: string[] = [];
  const read = { bytes: 0 };
  const watched = {
    open: async (key: string) => {
      opened.push(key);
      const blob = await store.open!(key);
      return {
        ...blob,
        read: async (into: Uint8Array, position: number) => {
          const n = await blob.read(into, position);
          read.bytes += n;
          return n;
        },
      };
    },
  };
  return { store, watched, opened, read };
}

describe('verifying a multi-part upload as its chunks come in', function () {
  this.timeout(120_000);
  let root: string;
  let store: BlobStore;
  let watched: { open: NonNullable<BlobStore['open']> };
  let opened: string[];
  let read: { bytes: number };
  let hasher: BlobHasher;
  let raw: Buffer;
  let id: string;

  before(async () => {
    const item = await itemOfSize(signers.arweave(), 5 * CHUNK + 1234);
    raw = item.getRaw();
    id = item.id;
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'prefix-verify-'));
    ({ store, watched, opened, read } = await watchedStore(root));
    hasher = createBlobHasher({ workers: 1 });
  });
  afterEach(async () => {
    await hasher.close();
    await store.close();
    await rm(root, { recursive: true, force: true });
  });

  /** `bytes` stored as chunks of `uploadId` of `size` bytes each, in offset order */
  async function storeChunks(uploadId: string, bytes: Uint8Array, size = CHUNK): Promise<Chunk[]> {
    const chunks: Chunk[] = [];
    for (let offset = 0; offset < bytes.length; offset += size) {
      const part = bytes.subarray(offset, offset + size);
      const blobKey = newChunkKey(uploadId, offset);
      await store.put(blobKey, [part] as unknown as AsyncIterable<Uint8Array>);
      chunks.push({ offset, length: part.length, sha256: sha256(part), blobKey });
    }
    return chunks;
  }

  const verifier = (maxUploads = 4): PrefixVerifier => createPrefixVerifier({ blobStore: watched, rules: { maxSize: 1 << 30 }, hasher, maxUploads });

  it('reads each chunk once, in order, whatever order they are recorded in, and leaves the finalize nothing to read', async () => {
    const chunks = await storeChunks('u1', raw);
    const prefix = verifier();
    for (const i of [2, 0, 5, 1, 4, 3]) prefix.recorded('u1', chunks[i]!);
    await eventually(
      () => opened.length,
      (n) => n === chunks.length,
      'every chunk opened',
    );
    expect(opened).to.deep.equal(chunks.map((c) => c.blobKey));

    expect(await prefix.take('u1', chunks)).to.deep.include({ sha256: sha256(raw) });
    // taken: a second finalize (after a crash, or an underfunded one asked again) reads every chunk itself
    expect(await prefix.take('u1', chunks)).to.equal(undefined);
    expect(opened).to.have.length(chunks.length);
    expect(prefix.following()).to.equal(0);
  });

  it('reads here only the first bytes, where the header is: the hashing worker reads the rest from the files itself', async () => {
    const item = await itemOfSize(signers.arweave(), 4 * 256 * KiB + 5);
    const chunks = await storeChunks('u1', item.getRaw(), 256 * KiB);
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    const result = await prefix.take('u1', chunks);
    expect(result?.verified.id).to.equal(item.id);
    expect(result?.sha256).to.equal(sha256(item.getRaw()));
    expect(read.bytes).to.equal(64 * KiB);
    expect(opened).to.have.length(5);
  });

  it('reads here every byte of blobs the store gives no file descriptor of, and verifies the same', async () => {
    const item = await itemOfSize(signers.arweave(), 4 * 256 * KiB + 5);
    const chunks = await storeChunks('u1', item.getRaw(), 256 * KiB);
    const noDescriptor = { open: async (key: string) => ({ ...(await watched.open(key)), fd: undefined }) };
    const prefix = createPrefixVerifier({ blobStore: noDescriptor, rules: { maxSize: 1 << 30 }, hasher, maxUploads: 4 });
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    const result = await prefix.take('u1', chunks);
    expect(result?.verified.id).to.equal(item.id);
    expect(result?.sha256).to.equal(sha256(item.getRaw()));
    expect(read.bytes).to.equal(item.getRaw().length);
  });

  it("gives nothing when a chunk's file is shorter than recorded, so the finalize reads every chunk itself", async () => {
    const item = await itemOfSize(signers.arweave(), 4 * 256 * KiB + 5);
    const chunks = await storeChunks('u1', item.getRaw(), 256 * KiB);
    await store.put(chunks[2]!.blobKey, [item.getRaw().subarray(2 * 256 * KiB, 2 * 256 * KiB + 1000)] as unknown as AsyncIterable<Uint8Array>);
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    expect(await prefix.take('u1', chunks)).to.equal(undefined);
  });

  it('gives the item verified: its id and the SHA-256 of its bytes', async () => {
    const chunks = await storeChunks('u1', raw);
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    const result = await prefix.take('u1', chunks);
    expect(result?.verified.id).to.equal(id);
    expect(result?.verified.rawContentLength).to.equal(raw.length);
    expect(result?.sha256).to.equal(sha256(raw));
  });

  it('reads at the finalize the chunks it never saw recorded (another process took them), after those it did', async () => {
    const chunks = await storeChunks('u1', raw);
    const prefix = verifier();
    prefix.recorded('u1', chunks[0]!);
    prefix.recorded('u1', chunks[1]!);
    prefix.recorded('u1', chunks[4]!);
    const result = await prefix.take('u1', chunks);
    expect(result?.verified.id).to.equal(id);
    expect(result?.sha256).to.equal(sha256(raw));
    expect(opened).to.deep.equal(chunks.map((c) => c.blobKey));
  });

  it('gives nothing when the chunks read are not the ones the upload ends with (replaced through another process)', async () => {
    const other = await itemOfSize(signers.arweave(), raw.length);
    const chunks = await storeChunks('u1', raw);
    const replacements = await storeChunks('u1', other.getRaw());
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    await eventually(
      () => opened.length,
      (n) => n === chunks.length,
      'every chunk opened',
    );
    expect(await prefix.take('u1', replacements)).to.equal(undefined);
  });

  it('gives nothing once a chunk already read is replaced here, and reads no chunk after it', async () => {
    const chunks = await storeChunks('u1', raw);
    const [replacement] = await storeChunks('u1', randomBytes(CHUNK));
    const prefix = verifier();
    prefix.recorded('u1', chunks[0]!);
    await eventually(
      () => opened.length,
      (n) => n === 1,
      'the first chunk opened',
    );
    prefix.recorded('u1', replacement!);
    for (const chunk of chunks.slice(1)) prefix.recorded('u1', chunk);
    expect(await prefix.take('u1', [replacement!, ...chunks.slice(1)])).to.equal(undefined);
    expect(opened).to.deep.equal([chunks[0]!.blobKey]);
  });

  it('reads the chunk recorded last at an offset not read yet', async () => {
    const chunks = await storeChunks('u1', raw);
    const [early] = await storeChunks('u1', randomBytes(CHUNK));
    const prefix = verifier();
    // a first version of chunk 1 is replaced before it can be read: chunk 0 is recorded last of all
    prefix.recorded('u1', { ...early!, offset: CHUNK });
    for (const chunk of [...chunks.slice(1), chunks[0]!]) prefix.recorded('u1', chunk);
    const result = await prefix.take('u1', chunks);
    expect(result?.verified.id).to.equal(id);
    expect(opened).to.deep.equal(chunks.map((c) => c.blobKey));
  });

  it('fails the finalize as a read of every chunk would when the signature does not verify', async () => {
    const bytes = Buffer.from(raw);
    bytes[bytes.length - 1]! ^= 0xff; // the payload no longer matches the signature
    const chunks = await storeChunks('u1', bytes);
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    await eventually(
      () => opened.length,
      (n) => n === chunks.length,
      'every chunk opened',
    );
    const result = await prefix.take('u1', chunks).catch((error: Error) => error);
    expect(result).to.be.instanceOf(InvalidDataItem);
    expect((result as Error).message).to.equal('signature of type 1 does not verify');
  });

  it('gives nothing when its hashing worker died after the chunks went in, so the finalize reads every chunk itself', async () => {
    await hasher.close();
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, startWorker: workers.start });
    const chunks = await storeChunks('u1', raw);
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    await eventually(
      () => opened.length,
      (n) => n === chunks.length,
      'every chunk opened',
    );
    workers.hold(); // the digest's last piece and its answer never reach the worker before it dies
    const taking = prefix.take('u1', chunks);
    await eventually(
      () => workers.held.length,
      (n) => n > 0,
      'a hash held in a worker',
    );
    await workers.started[0]!.terminate();
    expect(await taking).to.equal(undefined);
  });

  it('follows at most maxUploads uploads, dropping the one fed least recently', async () => {
    const first = await storeChunks('u1', raw);
    const second = await storeChunks('u2', raw);
    const prefix = verifier(1);
    prefix.recorded('u1', first[0]!);
    prefix.recorded('u2', second[0]!);
    expect(prefix.following()).to.equal(1);
    for (const chunk of second.slice(1)) prefix.recorded('u2', chunk);
    expect(await prefix.take('u1', first)).to.equal(undefined);
    expect((await prefix.take('u2', second))?.verified.id).to.equal(id);
  });

  it('drops what it did for an upload it is told to forget', async () => {
    const chunks = await storeChunks('u1', raw);
    const prefix = verifier();
    for (const chunk of chunks) prefix.recorded('u1', chunk);
    prefix.forget('u1');
    expect(prefix.following()).to.equal(0);
    expect(await prefix.take('u1', chunks)).to.equal(undefined);
  });
});

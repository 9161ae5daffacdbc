import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { readInto } from '../../src/app/multipart/assembleUpload.js';
import { BufferPool } from '../../src/bufferPool.js';
import type { BlobStore } from '../../src/ports/blobStore.js';

describe('reading stored chunks into a pooled buffer (finalize, chunks not verified as they came)', () => {
  let root: string;
  let blobStore: BlobStore;
  const first = randomBytes(2500);
  const second = randomBytes(1700);
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'read-into-'));
    blobStore = await openFsBlobStore({ root });
    await blobStore.put('chunks/a', Readable.from([first]));
    await blobStore.put('chunks/b', Readable.from([second]));
  });
  afterEach(async () => {
    await blobStore.close();
    await rm(root, { recursive: true, force: true });
  });
  const open = () => blobStore.open!.bind(blobStore);
  const sources = [
    { key: 'chunks/a', start: 0, length: 2500 },
    { key: 'chunks/b', start: 200, length: 1500 },
  ];

  it('yields the ranges back to back, exactly, all through one buffer of the pool, given back at the end', async () => {
    const pool = new BufferPool(1000, 2);
    const seen = new Set<ArrayBufferLike>();
    const copies: Buffer[] = [];
    for await (const piece of readInto(open(), sources, pool)) {
      seen.add(piece.buffer);
      copies.push(Buffer.from(piece));
      expect(pool.lent).to.equal(1);
    }
    expect(Buffer.compare(Buffer.concat(copies), Buffer.concat([first, second.subarray(200)]))).to.equal(0);
    expect(copies.map((c) => c.length)).to.deep.equal([1000, 1000, 500, 1000, 500]);
    expect(seen.size).to.equal(1);
    expect([pool.lent, pool.kept]).to.deep.equal([0, 1]);
  });

  it('gives the buffer back when its consumer stops early', async () => {
    const pool = new BufferPool(1000, 2);
    for await (const piece of readInto(open(), sources, pool)) {
      expect(piece.byteLength).to.equal(1000);
      break;
    }
    expect(pool.lent).to.equal(0);
  });

  it('fails on a blob shorter than its range, naming it, and gives the buffer back', async () => {
    const pool = new BufferPool(1000, 2);
    const short = [{ key: 'chunks/b', start: 0, length: 1800 }];
    const failure = await (async () => {
      for await (const piece of readInto(open(), short, pool)) void piece;
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as Error).message).to.equal('chunk blob chunks/b gave 1700 of 1800 bytes');
    expect(pool.lent).to.equal(0);
  });
});

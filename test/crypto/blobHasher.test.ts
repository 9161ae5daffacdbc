import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobHashingError, createBlobHasher, INLINE_BELOW, inlineHasher, type BlobHasher, type HashSession } from '../../src/crypto/blobHasher.js';
import { exited, heldHashWorkers } from '../support/heldHashWorkers.js';
import { eventually } from '../support/eventually.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sha384 = (bytes: Uint8Array) => new Uint8Array(createHash('sha384').update(bytes).digest());

/** settles, or 'pending' after the event loop has turned a few times */
const settledYet = async (promise: Promise<unknown>) => {
  const state = promise.then(
    () => 'resolved',
    (error: Error) => `rejected: ${error.message}`,
  );
  for (let i = 0; i < 20; i++) await new Promise(setImmediate);
  return Promise.race([state, Promise.resolve('pending')]);
};

/** `bytes` given in chunks of 1 to `most` bytes (the sizes a socket or a file hands out vary) */
async function feed(session: HashSession, bytes: Uint8Array, most: number, seed = 1) {
  let state = seed;
  for (let at = 0; at < bytes.length;) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (state % most);
    await session.update(bytes.subarray(at, at + n));
    at += n;
  }
}

describe('blob hasher (SHA-256 on worker threads)', function () {
  this.timeout(60_000);
  let hasher: BlobHasher | undefined;
  afterEach(async () => {
    await hasher?.close();
    hasher = undefined;
  });

  it('gives the SHA-256 of every byte given: below the inline size on this thread, from it on a worker', async () => {
    hasher = createBlobHasher({ workers: 1 });
    for (const size of [0, 1, INLINE_BELOW - 1]) {
      const bytes = randomBytes(size);
      const session = hasher.start();
      await feed(session, bytes, 70_000);
      expect(await session.digest(), `${size} bytes`).to.equal(sha256(bytes));
      expect(hasher.running(), `${size} bytes`).to.equal(0);
    }
    for (const size of [INLINE_BELOW, INLINE_BELOW + 1, 3 * 1024 * 1024 + 17]) {
      const bytes = randomBytes(size);
      const session = hasher.start();
      await feed(session, bytes, 70_000);
      expect(await session.digest(), `${size} bytes`).to.equal(sha256(bytes));
      expect(hasher.running(), `${size} bytes`).to.equal(1);
    }
  });

  it('lets the caller refill its buffer once update resolves, below the inline size and from it on', async () => {
    hasher = createBlobHasher({ workers: 1 });
    for (const size of [1000, INLINE_BELOW - 1, INLINE_BELOW + 5000]) {
      const bytes = randomBytes(size);
      const buffer = new Uint8Array(4096);
      const session = hasher.start();
      for (let at = 0; at < size; at += buffer.length) {
        const n = Math.min(buffer.length, size - at);
        buffer.set(bytes.subarray(at, at + n));
        await session.update(buffer.subarray(0, n));
        buffer.fill(0xee);
      }
      expect(await session.digest(), `${size} bytes`).to.equal(sha256(bytes));
    }
  });

  it('gives each of several sessions hashed at once on one worker its own digest, across piece boundaries', async () => {
    hasher = createBlobHasher({ workers: 1, inlineBelow: 0, pieceBytes: 1000, piecesPerSession: 2 });
    const items = [1, 999, 1000, 1001, 2000, 7777, 50_001].map((size) => randomBytes(size));
    const digests = await Promise.all(
      items.map(async (bytes, i) => {
        const session = hasher!.start();
        await feed(session, bytes, 1500, i + 7);
        return session.digest();
      }),
    );
    expect(digests).to.deep.equal(items.map(sha256));
    expect(hasher.running()).to.equal(1);
  });

  it('holds at most its pieces: with every piece at a worker that is behind, update waits until one comes back', async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, inlineBelow: 0, pieceBytes: 1024, piecesPerSession: 3, startWorker: workers.start });
    workers.hold();
    const session = hasher.start();
    const bytes = randomBytes(8 * 1024);
    // three pieces filled and posted: the bound
    await session.update(bytes.subarray(0, 3 * 1024));
    expect(workers.held).to.have.length(3);
    let took = false;
    const taking = session.update(bytes.subarray(3 * 1024, 4 * 1024)).then(() => (took = true));
    // nothing can come back while the worker's messages are held: the fourth KiB is not taken
    for (let i = 0; i < 20; i++) await new Promise(setImmediate);
    expect(took).to.equal(false);
    expect(workers.held).to.have.length(3);
    workers.releaseOne();
    await taking;
    workers.releaseAll();
    await session.update(bytes.subarray(4 * 1024));
    expect(await session.digest()).to.equal(sha256(bytes));
  });

  it("gives a worker each piece's shared memory once, then names the piece by number, for this session and the next", async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, inlineBelow: 0, pieceBytes: 1024, piecesPerSession: 2, startWorker: workers.start });
    const first = randomBytes(8 * 1024);
    const second = randomBytes(4 * 1024 + 5);
    const one = hasher.start();
    workers.hold();
    // both pieces filled before the worker answers: the session allocates its two
    await one.update(first.subarray(0, 2048));
    workers.releaseAll();
    await feed(one, first.subarray(2048), 700);
    expect(await one.digest()).to.equal(sha256(first));
    const two = hasher.start();
    await feed(two, second, 700);
    expect(await two.digest()).to.equal(sha256(second));

    const updates = workers.posted.filter((m) => m.type === 'update');
    // eight pieces of the first item, five of the second, all in the same two pieces of shared memory
    expect(updates).to.have.length(8 + 5);
    expect(new Set(updates.map((m) => m.piece))).to.deep.equal(new Set([0, 1]));
    // memory with the first update of each piece, never again
    expect(updates.map((m) => m.shared !== undefined)).to.deep.equal([true, true, ...Array.from({ length: 6 + 5 }, () => false)]);
    expect(updates[0]!.shared).to.be.instanceOf(SharedArrayBuffer);
  });

  it('keeps at most `spare` pieces once sessions end, and has the workers forget the others', async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, inlineBelow: 0, pieceBytes: 1024, piecesPerSession: 3, spare: 1, startWorker: workers.start });
    const bytes = randomBytes(3 * 1024);
    const session = hasher.start();
    workers.hold();
    await session.update(bytes);
    workers.releaseAll();
    expect(await session.digest()).to.equal(sha256(bytes));
    await eventually(
      () => workers.posted.filter((m) => m.type === 'forget').length,
      (n) => n === 2,
      'two pieces forgotten',
    );
    const forgotten = workers.posted.flatMap((m) => (m.type === 'forget' ? [m.piece] : []));

    // the next session gets the one spare piece, and new ones under new numbers
    const next = hasher.start();
    workers.hold();
    await next.update(bytes);
    workers.releaseAll();
    expect(await next.digest()).to.equal(sha256(bytes));
    const updates = workers.posted.filter((m) => m.type === 'update').slice(3);
    const kept = [0, 1, 2].filter((n) => !forgotten.includes(n));
    expect(kept).to.have.length(1);
    expect(updates.map((m) => [m.piece, m.shared !== undefined])).to.deep.equal([
      [kept[0], false],
      [3, true],
      [4, true],
    ]);
  });

  it('takes back the piece an aborted session was filling: the next session fills it first', async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 1, inlineBelow: 0, pieceBytes: 1024, piecesPerSession: 2, startWorker: workers.start });
    const aborted = hasher.start();
    workers.hold();
    // piece 0 posted, piece 1 half filled
    await aborted.update(randomBytes(1536));
    aborted.abort();
    workers.releaseAll();
    const bytes = randomBytes(2048);
    const next = hasher.start();
    workers.hold();
    await next.update(bytes);
    workers.releaseAll();
    expect(await next.digest()).to.equal(sha256(bytes));
    // piece 0 may still be on its way back from the worker: then the second piece is a new one
    const updates = workers.posted.filter((m) => m.type === 'update');
    expect(updates.map((m) => [m.piece, m.shared !== undefined])).to.deep.equal([
      [0, true],
      [1, true],
      [2, true],
    ]);
  });

  it('fails the sessions of a worker that died with BlobHashingError, and starts a new worker for the next', async () => {
    const workers = heldHashWorkers();
    const logged: string[] = [];
    hasher = createBlobHasher({ workers: 1, startWorker: workers.start, log: (m) => logged.push(m) });
    const session = hasher.start();
    await session.update(randomBytes(1024 * 1024));
    await workers.started[0]!.terminate();
    const failure = await session.digest().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(BlobHashingError);
    // terminate() ends a thread with an exit code of 0 or 1, as the thread was idle or not
    expect((failure as Error).message).to.match(/^SHA-256 worker stopped \(exit code [01]\)$/);
    expect(logged).to.deep.equal([`${(failure as Error).message}; 1 hashes lost`]);
    expect(hasher.running()).to.equal(0);

    const bytes = randomBytes(1024 * 1024);
    const next = hasher.start();
    await next.update(bytes);
    expect(await next.digest()).to.equal(sha256(bytes));
    expect(workers.started).to.have.length(2);
  });

  it('stops its workers on close and fails what was still being hashed', async () => {
    const workers = heldHashWorkers();
    hasher = createBlobHasher({ workers: 2, startWorker: workers.start });
    const open = [hasher.start(), hasher.start()];
    for (const session of open) await session.update(randomBytes(512 * 1024));
    expect(hasher.running()).to.equal(2);
    await hasher.close();
    for (const session of open) {
      const failure = await session.digest().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((failure as Error).message).to.equal('the hasher is closed');
    }
    await Promise.all(workers.started.map(exited));
    expect(workers.started.map((w) => w.threadId)).to.deep.equal([-1, -1]);
    expect(hasher.running()).to.equal(0);
  });

  describe("an item payload's SHA-384, and bytes a worker reads from a file itself", () => {
    let dir: string;
    let file: FileHandle;
    const bytes = randomBytes(3 * 1024 * 1024 + 4321);
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'blob-hasher-'));
      await writeFile(join(dir, 'bytes'), bytes);
      file = await open(join(dir, 'bytes'), 'r');
    });
    after(async () => {
      await file.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** the first `size` bytes: `head` of them given as bytes, the rest as ranges of the file (a range at most `range` long) */
    async function hashSplit(session: HashSession, size: number, head: number, from: number, range: number) {
      await session.update(bytes.subarray(0, Math.min(head, from)));
      session.payloadFrom(from);
      if (head > from) await session.update(bytes.subarray(from, head));
      for (let at = head; at < size; at += range) await session.updateFromFile(file.fd, at, Math.min(range, size - at));
      return session.digests();
    }

    it('gives the SHA-256 of every byte and the SHA-384 of those from the payload on, bytes and file ranges mixed, on a worker and inline', async () => {
      hasher = createBlobHasher({ workers: 1, pieceBytes: 1000, piecesPerSession: 2 });
      const cases = [
        { size: 0, head: 0, from: 0, range: 1 },
        { size: 1000, head: 10, from: 700, range: 999 },
        { size: INLINE_BELOW - 1, head: 1200, from: 1100, range: 4096 },
        { size: INLINE_BELOW, head: 1200, from: 1200, range: 70_000 },
        { size: bytes.length, head: 64 * 1024, from: 1234, range: 1024 * 1024 + 1 },
        { size: bytes.length, head: 3000, from: 2999, range: bytes.length },
      ];
      for (const [name, hashes] of [
        ['workers', hasher],
        ['inline', inlineHasher],
      ] as const) {
        for (const { size, head, from, range } of cases) {
          const digests = await hashSplit(hashes.start(), size, head, from, range);
          expect(digests, `${name}: ${size} bytes, payload from ${from}`).to.deep.equal({
            sha256: sha256(bytes.subarray(0, size)),
            payload: { sha384: sha384(bytes.subarray(from, size)), byteLength: Math.max(0, size - from) },
          });
        }
      }
      expect(hasher.running()).to.equal(1);
      // a session never asked for the payload's hash gives none
      const plain = hasher.start();
      await plain.updateFromFile(file.fd, 0, bytes.length);
      expect(await plain.digests()).to.deep.equal({ sha256: sha256(bytes) });
    });

    it("refuses to start the payload's hash before bytes already given", async () => {
      hasher = createBlobHasher({ workers: 1 });
      const session = hasher.start();
      await session.update(bytes.subarray(0, 100));
      expect(() => session.payloadFrom(99)).to.throw(RangeError, 'payload from byte 99 asked after 100 bytes were given');
      session.payloadFrom(100);
    });

    it('fails a session whose file gives fewer bytes than asked with BlobHashingError, and hashes the next session', async () => {
      hasher = createBlobHasher({ workers: 1 });
      const session = hasher.start();
      const failure = await session.updateFromFile(file.fd, bytes.length - 1024 * 1024, 2 * 1024 * 1024).catch((error: unknown) => error);
      expect(failure).to.be.instanceOf(BlobHashingError);
      // its second range of 1 MiB starts at the file's end
      expect((failure as Error).message).to.equal(`hashing a file's bytes: the file gave 0 of 1048576 bytes at ${bytes.length}`);
      await session.digest().then(
        () => expect.fail('a failed session gives no digest'),
        (error: Error) => expect(error).to.equal(failure),
      );
      const next = hasher.start();
      await next.updateFromFile(file.fd, 0, bytes.length);
      expect(await next.digest()).to.equal(sha256(bytes));
      expect(hasher.running()).to.equal(1);
    });

    it('keeps a file range it posted unsettled until the worker answered it, even once aborted: its caller closes the file only then', async () => {
      const workers = heldHashWorkers();
      hasher = createBlobHasher({ workers: 1, inlineBelow: 0, startWorker: workers.start });
      const session = hasher.start();
      workers.hold();
      const reading = session.updateFromFile(file.fd, 0, 2 * 1024 * 1024);
      expect(await settledYet(reading)).to.equal('pending');
      session.abort();
      // the worker may still read the file: the range is not settled
      expect(await settledYet(reading)).to.equal('pending');
      workers.releaseAll();
      expect(
        await reading.then(
          () => 'resolved',
          (error: Error) => error.message,
        ),
      ).to.equal('hash session aborted');
      // the worker forgot the session once it had answered
      expect(workers.posted.map((request) => request.type)).to.deep.equal(['file', 'file', 'drop']);
    });
  });
});

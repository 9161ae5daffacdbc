import { read } from 'node:fs';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { BlobHashes } from './blobHashes.mjs';
import type { Digests, HashRequest, HashResponse } from './blobHashWorkerProtocol.js';

/**
 * The SHA-256 of an item's raw bytes (the blob digest `DataItemAccepted.sha256` records, which the
 * audit and the bundler check stored blobs against), computed on worker threads so that the request's
 * thread hashes each byte once: with the SHA-384 of the deep hash, which the signature needs there.
 *
 * Why a second thread rather than reusing the verifier's digest: the deep hash covers the header's
 * fields and the payload, but not their framing (a blob whose signature-type bytes or tag-count
 * fields were changed, or with bytes appended after a valid item, can hash the same), and it is not
 * the digest old events recorded. A blob digest that is still exactly the SHA-256 of every stored
 * byte keeps the audit's check as strong as it was, changes no event, and leaves every recorded
 * `sha256` valid. What it costs is a copy of each byte (memcpy, an order faster than a hash) and a
 * message per piece, on a core the main thread does not use meanwhile.
 *
 * Memory: a session copies bytes into pieces of `pieceBytes` and has at most `piecesPerSession` of
 * them (filling or in flight); a piece comes back to be filled again once the worker has hashed it.
 * With none free, `update` waits for one: the caller stops reading its source (backpressure on the
 * request stream), so what a session holds never grows with the item's size. Pieces of ended
 * sessions are kept for the next ones (up to `spare`), not left to the garbage collector: an upload
 * of many chunks would otherwise hold memory for each until a collection. Pieces are shared memory
 * that a worker is given once and then named by number (blobHashWorkerProtocol.ts): a piece's round
 * trip allocates nothing outside either thread's heap, so a large upload's hashing adds no external
 * memory for the request's thread to collect.
 *
 * Small items stay on the calling thread: below `inlineBelow` bytes a session keeps copies of the chunks
 * it was given (a caller may refill its buffer once `update` resolves) and hashes them at `digest`,
 * since a worker's round trip costs more than hashing a few KiB (see INLINE_BELOW).
 *
 * An item's payload SHA-384 (the deep hash's bulk) can be asked of a session too (`payloadFrom`), and a
 * session can be given bytes as a range of an open file (`updateFromFile`) that the worker reads
 * itself: a multi-part upload's chunks, read back from their blobs to verify the item, then cross no
 * thread and cost the request's thread nothing per byte (src/app/multipart/prefixVerifier.ts).
 *
 * A worker that dies fails every session it was hashing (their uploads answer 500 and keep nothing,
 * as any failure before acceptance); the next session starts a new worker. Workers are started when
 * a first item needs one, and `close` stops them.
 */
export interface BlobHasher {
  /** a new SHA-256 of bytes given in order */
  start(): HashSession;
  /** worker threads running now */
  running(): number;
  /** fails the sessions still open and stops the workers */
  close(): Promise<void>;
}

export interface HashSession {
  /** takes a copy of `chunk` (the caller may reuse its buffer once this resolves); resolves once there is room for more */
  update(chunk: Uint8Array): Promise<void>;
  /**
   * the next `length` bytes are those of the open file `fd` from `position`: read where they are
   * hashed (a worker, but for a session still below the inline size); the caller keeps `fd` open
   * until this settles. Rejects with BlobHashingError when the file gives fewer bytes or fails.
   */
  updateFromFile(fd: number, position: number, length: number): Promise<void>;
  /** asks for the SHA-384 of the bytes from byte `from` on too (an item's payload); before any byte past `from` is given */
  payloadFrom(from: number): void;
  /** hex SHA-256 of every byte given */
  digest(): Promise<string>;
  /** the SHA-256 of every byte given, and the payload's SHA-384 and length when `payloadFrom` asked for it */
  digests(): Promise<Digests>;
  /** the bytes are not needed any more (the upload failed): frees what the session holds */
  abort(): void;
}

export class BlobHashingError extends Error {
  override readonly name = 'BlobHashingError';
}

/**
 * Below this many bytes an item's SHA-256 is computed on the calling thread: a worker's round trip
 * (pieces posted and given back, the digest answered) costs the event loop about what hashing
 * 128 KiB does, so below that the worker saves it nothing.
 */
export const INLINE_BELOW = 128 * 1024;
/**
 * Pieces of 1 MiB: each costs a message out and one back, so fewer, larger pieces cost the main
 * thread less. Four of them let the worker be a few milliseconds late (descheduled on a busy
 * machine) without stalling the request.
 */
const PIECE_BYTES = 1024 * 1024;
const PIECES_PER_SESSION = 4;
/**
 * Pieces kept for later sessions: enough for 8 uploads hashed at once (4 pieces each), so that their
 * pieces are used again rather than dropped and made anew per upload. A dropped piece's shared memory
 * is freed only once both threads collected it, which a thread that allocates little does seldom:
 * when each chunk of a multi-part upload had a session of its own (5 in parallel), 8 kept took a
 * 1 GiB multi-part upload's peak RSS from 258 to 506 MiB. (Chunks are hashed only as the item's
 * bytes now, one session per upload: docs/decisions.md.)
 */
const SPARE_PIECES = 32;
/** what one message has a worker read of a file: as a piece, so that other sessions' pieces wait for no more than one */
const FILE_RANGE_BYTES = 1024 * 1024;
const FILE_RANGES_IN_FLIGHT = 4;

export interface BlobHasherOptions {
  /** worker threads at most (default: one fewer than the cores, at least one, at most four) */
  workers?: number;
  inlineBelow?: number;
  pieceBytes?: number;
  piecesPerSession?: number;
  /** pieces kept for later sessions once their session ended */
  spare?: number;
  /** starts one worker; the default runs blobHashWorker.mjs (tests wrap it to stall or kill workers) */
  startWorker?: () => Worker;
  log?: (message: string) => void;
}

// no TypeScript loader in the worker (it is plain JavaScript): a worker inherits `--import tsx` otherwise
export const startBlobHashWorker = (): Worker => new Worker(new URL('./blobHashWorker.mjs', import.meta.url), { execArgv: [] });

/** shared memory a session fills and a worker hashes; messages name it by `number` */
interface Piece {
  readonly number: number;
  readonly bytes: Uint8Array;
}

interface PiecePool {
  take(): Piece;
  give(pieces: Piece[]): void;
}

interface Slot {
  worker: Worker;
  sessions: Map<number, WorkerSession>;
  failure?: Error;
  exited: boolean;
  /** pieces the worker has a view of (given with their first update), by number */
  known: Set<number>;
  /** pieces posted to the worker and not given back yet, by number */
  posted: Map<number, Piece>;
}

export function createBlobHasher({
  workers = Math.max(1, Math.min(4, availableParallelism() - 1)),
  inlineBelow = INLINE_BELOW,
  pieceBytes = PIECE_BYTES,
  piecesPerSession = PIECES_PER_SESSION,
  spare: spareMax = SPARE_PIECES,
  startWorker = startBlobHashWorker,
  log = (message) => console.warn(message),
}: BlobHasherOptions = {}): BlobHasher {
  if (piecesPerSession < 1 || pieceBytes < 1) throw new RangeError('a hash session needs at least one piece of at least one byte');
  const slots: Slot[] = [];
  const spare: Piece[] = [];
  let nextPiece = 0;
  const pieces: PiecePool = {
    take: () => spare.pop() ?? { number: nextPiece++, bytes: new Uint8Array(new SharedArrayBuffer(pieceBytes)) },
    give: (given) => {
      for (const piece of given) {
        if (spare.length < spareMax) spare.push(piece);
        else forget(piece);
      }
    },
  };
  /** a piece past the spares is dropped: the workers that know it let go of their view too */
  function forget(piece: Piece): void {
    for (const slot of slots)
      if (slot.known.delete(piece.number) && !slot.exited) slot.worker.postMessage({ type: 'forget', piece: piece.number } satisfies HashRequest);
  }
  let nextId = 0;
  let closed = false;

  function spawn(): Slot {
    const slot: Slot = { worker: startWorker(), sessions: new Map(), exited: false, known: new Set(), posted: new Map() };
    slot.worker.on('message', (response: HashResponse) => {
      const piece = response.type === 'hashed' ? slot.posted.get(response.piece) : undefined;
      if (piece) slot.posted.delete(piece.number);
      const session = slot.sessions.get(response.id);
      if (!session) {
        // the piece of a session that was aborted meanwhile
        if (piece) pieces.give([piece]);
        return;
      }
      if (response.type === 'hashed') {
        if (piece) session.hashed(piece);
      } else if (response.type === 'read') session.read();
      else if (response.type === 'failed') {
        session.fail(new BlobHashingError(`hashing a file's bytes: ${response.message}`));
        // a file range's answer; a digest's is the worker's last word on the session
        if (response.of === 'file') session.read();
        else slot.sessions.delete(response.id);
      } else {
        slot.sessions.delete(response.id);
        session.digested(response.digests);
      }
    });
    slot.worker.on('error', (error) => (slot.failure = error));
    slot.worker.on('exit', (code) => {
      slot.exited = true;
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const why = closed ? 'the hasher is closed' : `SHA-256 worker stopped (${slot.failure?.message ?? `exit code ${code}`})`;
      if (!closed) log(`${why}; ${slot.sessions.size} hashes lost`);
      const error = new BlobHashingError(why);
      for (const session of slot.sessions.values()) session.fail(error);
      slot.sessions.clear();
    });
    slots.push(slot);
    return slot;
  }

  /** the worker with the fewest sessions, or a new one while there is an idle core for it */
  function attach(session: WorkerSession): { slot: Slot; id: number } {
    if (closed) throw new BlobHashingError('the hasher is closed');
    let slot: Slot | undefined;
    for (const candidate of slots) if (!slot || candidate.sessions.size < slot.sessions.size) slot = candidate;
    if (!slot || (slot.sessions.size > 0 && slots.length < workers)) slot = spawn();
    const id = nextId++;
    slot.sessions.set(id, session);
    return { slot, id };
  }

  return {
    start: () => new WorkerSession({ inlineBelow, piecesPerSession, attach, pieces }),
    running: () => slots.length,
    async close() {
      closed = true;
      const closing = new BlobHashingError('the hasher is closed');
      for (const slot of slots) for (const session of slot.sessions.values()) session.fail(closing);
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}

/** The hasher of a process with no worker threads to spare (scripts, the audit): every byte on this thread. */
export const inlineHasher: BlobHasher = {
  start() {
    const hashes = new BlobHashes();
    return {
      update: async (chunk) => hashes.update(chunk),
      updateFromFile: async (fd, position, length) => {
        const buffer = new Uint8Array(Math.min(length, FILE_RANGE_BYTES));
        for (let done = 0; done < length;) {
          const n = Math.min(buffer.length, length - done);
          hashes.update(buffer.subarray(0, await readExactly(fd, buffer.subarray(0, n), position + done)));
          done += n;
        }
      },
      payloadFrom: (from) => {
        assertPayloadStart(from, hashes.at);
        hashes.payloadFrom(from);
      },
      digest: async () => hashes.digests().sha256,
      digests: async () => hashes.digests(),
      abort: () => {},
    };
  },
  running: () => 0,
  close: async () => {},
};

function assertPayloadStart(from: number, given: number): void {
  if (!Number.isSafeInteger(from) || from < given) throw new RangeError(`payload from byte ${from} asked after ${given} bytes were given`);
}

const readAt = promisify(read);

/** fills `into` from the file at `position`; how many bytes (all of them), or BlobHashingError */
async function readExactly(fd: number, into: Uint8Array, position: number): Promise<number> {
  for (let done = 0; done < into.byteLength;) {
    let n: number;
    try {
      ({ bytesRead: n } = await readAt(fd, into, done, into.byteLength - done, position + done));
    } catch (error) {
      throw new BlobHashingError(`hashing a file's bytes: ${(error as Error).message}`);
    }
    if (n === 0) throw new BlobHashingError(`hashing a file's bytes: the file gave ${done} of ${into.byteLength} bytes at ${position}`);
    done += n;
  }
  return into.byteLength;
}

interface FileRange extends Waiter<void> {
  fd: number;
  position: number;
  length: number;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

class WorkerSession implements HashSession {
  /** below the inline size: copies of the chunks, hashed here at digest */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  /** bytes given so far */
  private given = 0;
  /** where the payload's SHA-384 starts, once asked */
  private payloadStart: number | undefined;
  private target: { slot: Slot; id: number } | undefined;
  private piece: Piece | undefined;
  private filled = 0;
  private readonly free: Piece[] = [];
  private allocated = 0;
  private room: Waiter<Piece> | undefined;
  /** file ranges posted to the worker, oldest first (it answers each in order), and those waiting for room */
  private readonly reading: FileRange[] = [];
  private readonly toRead: FileRange[] = [];
  /** aborted while the worker still had file ranges: forgotten once it answered them */
  private detaching = false;
  private result: Waiter<Digests> | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(
    private readonly settings: {
      inlineBelow: number;
      piecesPerSession: number;
      attach: (session: WorkerSession) => { slot: Slot; id: number };
      pieces: PiecePool;
    },
  ) {}

  async update(chunk: Uint8Array): Promise<void> {
    this.assertOpen('update');
    this.given += chunk.byteLength;
    if (!this.target) {
      if (this.heldBytes + chunk.byteLength < this.settings.inlineBelow) {
        this.held.push(new Uint8Array(chunk));
        this.heldBytes += chunk.byteLength;
        return;
      }
      await this.attach();
    }
    await this.copy(chunk);
  }

  async updateFromFile(fd: number, position: number, length: number): Promise<void> {
    this.assertOpen('updateFromFile');
    if (!this.target && this.heldBytes + length < this.settings.inlineBelow) {
      const bytes = new Uint8Array(length);
      await readExactly(fd, bytes, position);
      this.assertOpen('updateFromFile');
      this.given += length;
      this.held.push(bytes);
      this.heldBytes += length;
      return;
    }
    this.given += length;
    if (!this.target) await this.attach();
    // the bytes given before these go first
    if (this.filled > 0) this.send();
    // in ranges, a few in flight: the worker never waits for this thread between two, and other
    // sessions' pieces wait for one range at most; a caller may give the next file before this one is read
    const ranges: Promise<void>[] = [];
    for (let done = 0; done < length;) {
      const n = Math.min(FILE_RANGE_BYTES, length - done);
      const range = { fd, position: position + done, length: n } as FileRange;
      ranges.push(new Promise<void>((resolve, reject) => Object.assign(range, { resolve, reject })));
      this.toRead.push(range);
      done += n;
    }
    this.postRanges();
    // settled once every range is: until then the worker may read the file
    const failed = (await Promise.allSettled(ranges)).find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  payloadFrom(from: number): void {
    this.assertOpen('payloadFrom');
    assertPayloadStart(from, this.given);
    this.payloadStart = from;
    if (this.target) this.post(this.target.slot, { type: 'payload', id: this.target.id, from });
  }

  async digest(): Promise<string> {
    return (await this.digests()).sha256;
  }

  async digests(): Promise<Digests> {
    this.assertOpen('digest');
    this.ended = true;
    if (!this.target) {
      const hashes = new BlobHashes();
      if (this.payloadStart !== undefined) hashes.payloadFrom(this.payloadStart);
      for (const bytes of this.held) hashes.update(bytes);
      this.held = [];
      return hashes.digests();
    }
    if (this.filled > 0) this.send();
    const { slot, id } = this.target;
    return new Promise<Digests>((resolve, reject) => {
      this.result = { resolve, reject };
      this.post(slot, { type: 'digest', id });
    });
  }

  abort(): void {
    const open = !this.ended || this.failure !== undefined;
    this.ended = true;
    this.held = [];
    this.fail(new BlobHashingError('hash session aborted'));
    if (open && this.target) this.detach();
  }

  /** called by the pool: the worker hashed a piece and gave its buffer back */
  hashed(piece: Piece): void {
    const room = this.room;
    this.room = undefined;
    if (room) room.resolve(piece);
    else this.free.push(piece);
  }

  /** called by the pool: the worker answered the oldest file range it was given (hashed, or failed the session) */
  read(): void {
    const range = this.reading.shift();
    if (this.failure) range?.reject(this.failure);
    else range?.resolve();
    this.postRanges();
    if (this.detaching && this.reading.length === 0) this.detach();
  }

  digested(digests: Digests): void {
    this.result?.resolve(digests);
    this.result = undefined;
    this.settings.pieces.give(this.free.splice(0));
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.room?.reject(this.failure);
    for (const range of this.toRead.splice(0)) range.reject(this.failure);
    // a range posted to a living worker settles when it answers: until then it may read the file,
    // which its caller keeps open as long as the range is not settled
    if (!this.target || this.target.slot.exited) for (const range of this.reading.splice(0)) range.reject(this.failure);
    this.result?.reject(this.failure);
    this.room = undefined;
    this.result = undefined;
    // the piece being filled too: a worker may know it, and only the pool tells it to forget one
    if (this.piece) this.free.push(this.piece);
    this.piece = undefined;
    this.filled = 0;
    this.settings.pieces.give(this.free.splice(0));
  }

  /** the worker forgets the session, once it has answered every file range (their files close then) */
  private detach(): void {
    const { slot, id } = this.target!;
    this.detaching = this.reading.length > 0 && !slot.exited;
    if (this.detaching || !slot.sessions.has(id)) return;
    slot.sessions.delete(id);
    if (!slot.exited) this.post(slot, { type: 'drop', id });
  }

  private postRanges(): void {
    if (this.failure) return;
    const { slot, id } = this.target!;
    while (this.reading.length < FILE_RANGES_IN_FLIGHT && this.toRead.length > 0) {
      const range = this.toRead.shift()!;
      this.reading.push(range);
      this.post(slot, { type: 'file', id, fd: range.fd, position: range.position, length: range.length });
    }
  }

  private assertOpen(what: string): void {
    if (this.failure) throw this.failure;
    if (this.ended) throw new Error(`hash session: ${what} after digest or abort`);
  }

  /** moves to a worker: what the payload's hash starts at, then the bytes held so far */
  private async attach(): Promise<void> {
    this.target = this.settings.attach(this);
    if (this.payloadStart !== undefined) this.post(this.target.slot, { type: 'payload', id: this.target.id, from: this.payloadStart });
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const bytes of held) await this.copy(bytes);
  }

  private async copy(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      this.piece ??= await this.pieceBuffer();
      const { bytes } = this.piece;
      const n = Math.min(chunk.byteLength - offset, bytes.byteLength - this.filled);
      bytes.set(offset === 0 && n === chunk.byteLength ? chunk : chunk.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
      if (this.filled === bytes.byteLength) this.send();
    }
  }

  /** a free piece, a new one while under the bound, else the next one the worker gives back */
  private pieceBuffer(): Piece | Promise<Piece> {
    if (this.failure) throw this.failure;
    const free = this.free.pop();
    if (free) return free;
    if (this.allocated < this.settings.piecesPerSession) {
      this.allocated += 1;
      return this.settings.pieces.take();
    }
    return new Promise<Piece>((resolve, reject) => (this.room = { resolve, reject }));
  }

  private send(): void {
    const piece = this.piece!;
    const { slot, id } = this.target!;
    this.piece = undefined;
    const length = this.filled;
    this.filled = 0;
    // the worker is given the piece's memory once; after that its number says which piece
    const shared = slot.known.has(piece.number) ? {} : { shared: piece.bytes.buffer as SharedArrayBuffer };
    this.post(slot, { type: 'update', id, piece: piece.number, length, ...shared });
    slot.known.add(piece.number);
    slot.posted.set(piece.number, piece);
  }

  private post(slot: Slot, request: HashRequest): void {
    if (slot.exited) throw (this.failure ??= new BlobHashingError('SHA-256 worker stopped'));
    slot.worker.postMessage(request);
  }
}

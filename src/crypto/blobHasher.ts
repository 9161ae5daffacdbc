import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { HashRequest, HashResponse } from './sha256WorkerProtocol.js';

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
 * of many chunks would otherwise hold memory for each until a collection.
 *
 * Small items stay on the calling thread: below `inlineBelow` bytes a session keeps copies of the chunks
 * it was given (a caller may refill its buffer once `update` resolves) and hashes them at `digest`,
 * since a worker's round trip costs more than hashing a few KiB (measured: see INLINE_BELOW).
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
  /** hex SHA-256 of every byte given */
  digest(): Promise<string>;
  /** the bytes are not needed any more (the upload failed): frees what the session holds */
  abort(): void;
}

export class BlobHashingError extends Error {
  override readonly name = 'BlobHashingError';
}

/**
 * Below this many bytes an item's SHA-256 is computed on the calling thread. Measured on the 2-core
 * build machine (SHA-NI, event-loop time per item, 2000 items): 64 KiB inline 59 µs, through the
 * worker 235 µs; 128 KiB 166 µs against 152 µs; 192 KiB 341 µs against 89 µs. A worker's round trip
 * (pieces posted and given back, the digest answered) costs about what hashing 128 KiB does.
 */
export const INLINE_BELOW = 128 * 1024;
/**
 * Pieces of 1 MiB: the main thread's CPU for SHA-384 and this session over 64 KiB chunks measured
 * 1.44 s/GiB with them, 1.54 with pieces of 256 KiB (a message out and one back per piece), 1.9 with
 * both hashes there. Four of them let the worker be a few milliseconds late (descheduled on a busy
 * machine) without stalling the request.
 */
const PIECE_BYTES = 1024 * 1024;
const PIECES_PER_SESSION = 4;
/** pieces kept for later sessions */
const SPARE_PIECES = 8;

export interface BlobHasherOptions {
  /** worker threads at most (default: one fewer than the cores, at least one, at most four) */
  workers?: number;
  inlineBelow?: number;
  pieceBytes?: number;
  piecesPerSession?: number;
  /** pieces kept for later sessions once their session ended */
  spare?: number;
  /** starts one worker; the default runs sha256Worker.mjs (tests wrap it to stall or kill workers) */
  startWorker?: () => Worker;
  log?: (message: string) => void;
}

// no TypeScript loader in the worker (it is plain JavaScript): a worker inherits `--import tsx` otherwise
export const startSha256Worker = (): Worker => new Worker(new URL('./sha256Worker.mjs', import.meta.url), { execArgv: [] });

interface Slot {
  worker: Worker;
  sessions: Map<number, WorkerSession>;
  failure?: Error;
  exited: boolean;
}

export function createBlobHasher({
  workers = Math.max(1, Math.min(4, availableParallelism() - 1)),
  inlineBelow = INLINE_BELOW,
  pieceBytes = PIECE_BYTES,
  piecesPerSession = PIECES_PER_SESSION,
  spare: spareMax = SPARE_PIECES,
  startWorker = startSha256Worker,
  log = (message) => console.warn(message),
}: BlobHasherOptions = {}): BlobHasher {
  if (piecesPerSession < 1 || pieceBytes < 1) throw new RangeError('a hash session needs at least one piece of at least one byte');
  const slots: Slot[] = [];
  const spare: ArrayBuffer[] = [];
  const pieces = {
    take: () => spare.pop() ?? new ArrayBuffer(pieceBytes),
    give: (buffers: ArrayBuffer[]) => {
      for (const buffer of buffers) if (spare.length < spareMax && buffer.byteLength === pieceBytes) spare.push(buffer);
    },
  };
  let nextId = 0;
  let closed = false;

  function spawn(): Slot {
    const slot: Slot = { worker: startWorker(), sessions: new Map(), exited: false };
    slot.worker.on('message', (response: HashResponse) => {
      const session = slot.sessions.get(response.id);
      if (!session) {
        // the piece of a session that was aborted meanwhile
        if (response.type === 'hashed') pieces.give([response.piece]);
        return;
      }
      if (response.type === 'hashed') session.hashed(response.piece);
      else {
        slot.sessions.delete(response.id);
        session.digested(response.hex);
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
    const hash = createHash('sha256');
    return {
      update: async (chunk) => void hash.update(chunk),
      digest: async () => hash.digest('hex'),
      abort: () => {},
    };
  },
  running: () => 0,
  close: async () => {},
};

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

class WorkerSession implements HashSession {
  /** below the inline size: copies of the chunks, hashed here at digest */
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private target: { slot: Slot; id: number } | undefined;
  private piece: Uint8Array | undefined;
  private filled = 0;
  private readonly free: ArrayBuffer[] = [];
  private allocated = 0;
  private room: Waiter<ArrayBuffer> | undefined;
  private result: Waiter<string> | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(
    private readonly settings: {
      inlineBelow: number;
      piecesPerSession: number;
      attach: (session: WorkerSession) => { slot: Slot; id: number };
      pieces: { take(): ArrayBuffer; give(buffers: ArrayBuffer[]): void };
    },
  ) {}

  async update(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.ended) throw new Error('hash session: update after digest or abort');
    if (!this.target) {
      if (this.heldBytes + chunk.byteLength < this.settings.inlineBelow) {
        this.held.push(new Uint8Array(chunk));
        this.heldBytes += chunk.byteLength;
        return;
      }
      this.target = this.settings.attach(this);
      const held = this.held;
      this.held = [];
      for (const bytes of held) await this.copy(bytes);
    }
    await this.copy(chunk);
  }

  async digest(): Promise<string> {
    if (this.failure) throw this.failure;
    if (this.ended) throw new Error('hash session: digest after digest or abort');
    this.ended = true;
    if (!this.target) {
      const hash = createHash('sha256');
      for (const bytes of this.held) hash.update(bytes);
      this.held = [];
      return hash.digest('hex');
    }
    if (this.filled > 0) this.send();
    const { slot, id } = this.target;
    return new Promise<string>((resolve, reject) => {
      this.result = { resolve, reject };
      this.post(slot, { type: 'digest', id });
    });
  }

  abort(): void {
    const open = !this.ended && !this.failure;
    this.ended = true;
    this.held = [];
    this.fail(new BlobHashingError('hash session aborted'));
    if (open && this.target && !this.target.slot.exited) {
      this.target.slot.sessions.delete(this.target.id);
      this.post(this.target.slot, { type: 'drop', id: this.target.id });
    }
  }

  /** called by the pool: the worker hashed a piece and gave its buffer back */
  hashed(piece: ArrayBuffer): void {
    const room = this.room;
    this.room = undefined;
    if (room) room.resolve(piece);
    else this.free.push(piece);
  }

  digested(hex: string): void {
    this.result?.resolve(hex);
    this.result = undefined;
    this.settings.pieces.give(this.free.splice(0));
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.room?.reject(this.failure);
    this.result?.reject(this.failure);
    this.room = undefined;
    this.result = undefined;
    this.settings.pieces.give(this.free.splice(0));
  }

  private async copy(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      this.piece ??= new Uint8Array(await this.pieceBuffer());
      const n = Math.min(chunk.byteLength - offset, this.piece.byteLength - this.filled);
      this.piece.set(offset === 0 && n === chunk.byteLength ? chunk : chunk.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
      if (this.filled === this.piece.byteLength) this.send();
    }
  }

  /** a free piece, a new one while under the bound, else the next one the worker gives back */
  private pieceBuffer(): ArrayBuffer | Promise<ArrayBuffer> {
    if (this.failure) throw this.failure;
    const free = this.free.pop();
    if (free) return free;
    if (this.allocated < this.settings.piecesPerSession) {
      this.allocated += 1;
      return this.settings.pieces.take();
    }
    return new Promise<ArrayBuffer>((resolve, reject) => (this.room = { resolve, reject }));
  }

  private send(): void {
    const piece = this.piece!;
    const { slot, id } = this.target!;
    this.piece = undefined;
    const length = this.filled;
    this.filled = 0;
    this.post(slot, { type: 'update', id, piece: piece.buffer as ArrayBuffer, length }, [piece.buffer as ArrayBuffer]);
  }

  private post(slot: Slot, request: HashRequest, transfer: ArrayBuffer[] = []): void {
    if (slot.exited) throw (this.failure ??= new BlobHashingError('SHA-256 worker stopped'));
    slot.worker.postMessage(request, transfer);
  }
}

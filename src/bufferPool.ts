/**
 * Buffers of one size lent out and given back, for bytes that only pass through (a write being
 * gathered, a chunk being read): a large upload's MiB after MiB then reuses a few buffers instead of
 * allocating a fresh one each time. Fresh buffers are memory outside the JavaScript heap, and V8
 * answers a fast enough stream of it with full (mark-compact) collections of the thread, whatever
 * little is alive.
 *
 * Bounded: at most `keep` buffers wait here between uses; what is lent is bounded by the borrowers (a
 * few per upload, uploads bounded by the service's limits). A buffer given back twice, or never lent
 * by this pool, throws: it could be lent to two borrowers at once.
 */
export class BufferPool {
  readonly #free: Uint8Array[] = [];
  readonly #lent = new Set<Uint8Array>();

  constructor(
    readonly bufferBytes: number,
    readonly keep: number,
  ) {
    if (!Number.isSafeInteger(bufferBytes) || bufferBytes < 1 || !Number.isSafeInteger(keep) || keep < 0) {
      throw new RangeError(`a pool of ${keep} buffers of ${bufferBytes} bytes`);
    }
  }

  /** a buffer of `bufferBytes` (its old bytes in it), the borrower's until `give` */
  take(): Uint8Array {
    const buffer = this.#free.pop() ?? new Uint8Array(this.bufferBytes);
    this.#lent.add(buffer);
    return buffer;
  }

  /** the borrower is done with `buffer` (nothing reads or writes it any more) */
  give(buffer: Uint8Array): void {
    if (!this.#lent.delete(buffer)) throw new Error('a buffer given back to a pool that has not lent it (given twice?)');
    if (this.#free.length < this.keep) this.#free.push(buffer);
  }

  /** buffers lent and not given back */
  get lent(): number {
    return this.#lent.size;
  }

  /** buffers waiting to be lent again */
  get kept(): number {
    return this.#free.length;
  }
}

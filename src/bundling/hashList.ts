/**
 * 32-byte hashes, each with the end offset of the data under it, in two flat typed arrays. A tree
 * node as an object holding its own Buffer cost an ArrayBuffer per hash: thousands of them kept
 * through a streamed pass made V8 run a full collection every few megabytes read.
 */
export class HashList {
  private hashes: Uint8Array;
  private ends: Float64Array;
  private count = 0;

  constructor(capacity = 64) {
    this.hashes = new Uint8Array(32 * capacity);
    this.ends = new Float64Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(hash: Uint8Array, end: number): void {
    if (hash.byteLength !== 32) throw new RangeError(`a hash of ${hash.byteLength} bytes`);
    if (this.count === this.ends.length) this.grow();
    this.hashes.set(hash, 32 * this.count);
    this.ends[this.count] = end;
    this.count += 1;
  }

  /** a view, not a copy: valid until the next push */
  hash(index: number): Uint8Array {
    this.check(index);
    return this.hashes.subarray(32 * index, 32 * index + 32);
  }

  end(index: number): number {
    this.check(index);
    return this.ends[index] as number;
  }

  private check(index: number): void {
    if (!(Number.isInteger(index) && index >= 0 && index < this.count)) throw new RangeError(`no entry ${index} of ${this.count}`);
  }

  private grow(): void {
    const hashes = new Uint8Array(this.hashes.byteLength * 2);
    hashes.set(this.hashes);
    const ends = new Float64Array(this.ends.length * 2);
    ends.set(this.ends);
    this.hashes = hashes;
    this.ends = ends;
  }
}

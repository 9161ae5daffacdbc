/** bits per id and bit positions per id: about 1% of the ids never added answer "maybe" */
const BITS_PER_ID = 10;
const HASHES = 7;
/** ids the first filter is sized for; each next one is twice the size of the one before */
const FIRST_CAPACITY = 1 << 16;

interface Filter {
  bits: Uint32Array;
  /** the filter's size in bits, a power of two */
  mask: number;
  capacity: number;
  count: number;
}

/**
 * The ids written to a collection that started empty, as a Bloom filter: `mayHold` never answers
 * false for an id that was added, and answers true for about 1% of the others. A rebuild writes into
 * collections it emptied first, so a document it has never written is certainly absent and need not
 * be read from the store (most of its reads are of documents still to be created: each new item,
 * each reservation). Bounded: about 1.3 bytes per id, whatever the ids' length, growing a filter at a
 * time (each twice the one before) since how many ids will come is not known in advance.
 */
export class WrittenIds {
  readonly #filters: Filter[] = [];

  add(id: string): void {
    let filter = this.#filters[this.#filters.length - 1];
    if (filter === undefined || filter.count >= filter.capacity) {
      const capacity = filter === undefined ? FIRST_CAPACITY : filter.capacity * 2;
      const size = capacity * BITS_PER_ID;
      const bits = 2 ** Math.ceil(Math.log2(size));
      filter = { bits: new Uint32Array(bits / 32), mask: bits - 1, capacity, count: 0 };
      this.#filters.push(filter);
    }
    const [h1, h2] = hashes(id);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & filter.mask;
      filter.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    filter.count++;
  }

  /** false: `id` was never added; true: it probably was */
  mayHold(id: string): boolean {
    if (this.#filters.length === 0) return false;
    const [h1, h2] = hashes(id);
    return this.#filters.some((filter) => {
      for (let i = 0; i < HASHES; i++) {
        const bit = (h1 + Math.imul(i, h2)) & filter.mask;
        if ((filter.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      }
      return true;
    });
  }
}

/**
 * Two independent 32-bit hashes of the string's UTF-16 code units (FNV-1a, and a multiplicative one
 * finished with murmur3's mixer); the second made odd, so that the positions h1 + i·h2 of one id all differ.
 */
function hashes(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b ^= b >>> 16;
  b = Math.imul(b, 0x85ebca6b);
  b ^= b >>> 13;
  b = Math.imul(b, 0xc2b2ae35);
  b ^= b >>> 16;
  return [a >>> 0, (b | 1) >>> 0];
}

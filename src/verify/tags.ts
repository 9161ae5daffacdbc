import { MAX_TAG_BYTES as ARBUNDLES_MAX_TAG_BYTES } from 'arbundles';
import { InvalidDataItem } from '../domain/errors.js';
import type { Tag } from './types.js';

/**
 * ANS-104 tags: an Avro array of {name: string, value: string} records. Limits are the spec's
 * (ANS-104 section 2.1); arbundles itself only bounds the total at 4096 bytes.
 *
 * Only the one canonical encoding that arbundles' `serializeTags` writes is accepted: a single
 * block whose count is the declared tag count, minimal varints, valid UTF-8, then the 0 terminator,
 * filling the declared length exactly. Avro allows other encodings of the same tags (several
 * blocks, negative block counts with sizes, padded varints); accepting them would let bytes that
 * the signature does not pin down (the tag count field) disagree with what they describe, and
 * would let one tag list hash to many items.
 */

export const MAX_TAG_COUNT = 128;
export const MAX_TAG_BYTES: number = ARBUNDLES_MAX_TAG_BYTES; // 4096
export const MAX_TAG_NAME_BYTES = 1024;
export const MAX_TAG_VALUE_BYTES = 3072;

// The largest varint a valid tag section needs is 6144 (a 3072-byte length, zigzagged): two bytes.
// Refusing longer ones bounds the work on hostile input before any limit check.
const MAX_VARINT_BYTES = 3;

class Reader {
  pos = 0;
  constructor(private readonly bytes: Buffer) {}

  readLong(): number {
    let zigzag = 0;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      const byte = this.bytes[this.pos];
      if (byte === undefined) throw new InvalidDataItem('tag bytes end inside a number');
      this.pos += 1;
      zigzag += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
    }
    throw new InvalidDataItem('tag number too long');
  }

  readString(what: string, max: number): string {
    const length = this.readLong();
    if (length < 1 || length > max) throw new InvalidDataItem(`tag ${what} of ${length} bytes, expected 1..${max}`);
    if (this.pos + length > this.bytes.length) throw new InvalidDataItem(`tag ${what} runs past the tag bytes`);
    const text = this.bytes.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return text;
  }
}

export function decodeTags(raw: Buffer, declaredCount: number): Tag[] {
  if (declaredCount === 0) {
    if (raw.length !== 0) throw new InvalidDataItem(`no tags declared but ${raw.length} tag bytes`);
    return [];
  }
  const reader = new Reader(raw);
  const blockCount = reader.readLong();
  if (blockCount !== declaredCount) {
    throw new InvalidDataItem(`tag block holds ${blockCount} tags, header declares ${declaredCount}`);
  }
  const tags: Tag[] = [];
  for (let i = 0; i < declaredCount; i++) {
    const name = reader.readString('name', MAX_TAG_NAME_BYTES);
    const value = reader.readString('value', MAX_TAG_VALUE_BYTES);
    tags.push({ name, value });
  }
  if (reader.readLong() !== 0) throw new InvalidDataItem('tag array not terminated after the declared tags');
  if (reader.pos !== raw.length) throw new InvalidDataItem(`${raw.length - reader.pos} bytes after the tag array`);
  // catches what a field-by-field read cannot: padded varints and invalid or replaced UTF-8
  if (!encodeTags(tags).equals(raw)) throw new InvalidDataItem('tags are not canonically encoded');
  return tags;
}

/** the canonical encoding, byte for byte what arbundles' serializeTags writes (empty for no tags) */
export function encodeTags(tags: readonly Tag[]): Buffer {
  if (tags.length === 0) return Buffer.alloc(0);
  const parts: Buffer[] = [zigzagVarint(tags.length)];
  for (const { name, value } of tags) {
    for (const text of [name, value]) {
      const bytes = Buffer.from(text, 'utf8');
      parts.push(zigzagVarint(bytes.length), bytes);
    }
  }
  parts.push(zigzagVarint(0));
  return Buffer.concat(parts);
}

function zigzagVarint(n: number): Buffer {
  // only non-negative lengths and counts are ever written
  let rest = n * 2;
  const bytes: number[] = [];
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

import { MAX_TAG_BYTES as ARBUNDLES_MAX_TAG_BYTES } from 'arbundles';
import { InvalidDataItem } from '../domain/errors.js';
import type { Tag } from './types.js';

/**
 * ANS-104 tags: an Avro array of {name: string, value: string} records. By default the limits are
 * arbundles' (0.11.2, `DataItem.verify`), which the reference service and the gateways apply: at most
 * 4096 tag bytes in all, names and values of any length (empty too), any number of tags that fits.
 * Real apps write optional tags with empty values. `strict` adds the ANS-104 text (section 2.1):
 * at most 128 tags, names of 1..1024 bytes, values of 1..3072 bytes (STRICT_TAGS=true).
 *
 * Only the one canonical encoding that arbundles' `serializeTags` writes is accepted: a single
 * block whose count is the declared tag count, minimal varints, valid UTF-8, then the 0 terminator,
 * filling the declared length exactly. Avro allows other encodings of the same tags (several
 * blocks, negative block counts with sizes, padded varints); accepting them would let bytes that
 * the signature does not pin down (the tag count field) disagree with what they describe, and
 * would let one tag list hash to many items.
 */

export const MAX_TAG_BYTES: number = ARBUNDLES_MAX_TAG_BYTES; // 4096
/** ANS-104's own limits, enforced only under strict tag rules */
export const MAX_TAG_COUNT = 128;
export const MAX_TAG_NAME_BYTES = 1024;
export const MAX_TAG_VALUE_BYTES = 3072;

/** What tag lists are accepted: arbundles' (the default) or the ANS-104 text. */
export type TagRules = 'arbundles' | 'strict';

/** the most tags a tag section can declare under `rules` (an empty name and value take 2 bytes) */
export const maxTagCount = (rules: TagRules): number => (rules === 'strict' ? MAX_TAG_COUNT : MAX_TAG_BYTES / 2);

const lengths = (rules: TagRules) =>
  rules === 'strict'
    ? { name: { min: 1, max: MAX_TAG_NAME_BYTES }, value: { min: 1, max: MAX_TAG_VALUE_BYTES } }
    : { name: { min: 0, max: MAX_TAG_BYTES }, value: { min: 0, max: MAX_TAG_BYTES } };

// The largest varint a valid tag section needs is 8192 (a 4096-byte length, zigzagged): two bytes.
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

  readString(what: string, { min, max }: { min: number; max: number }): string {
    const length = this.readLong();
    if (length < min || length > max) throw new InvalidDataItem(`tag ${what} of ${length} bytes, expected ${min}..${max}`);
    if (this.pos + length > this.bytes.length) throw new InvalidDataItem(`tag ${what} runs past the tag bytes`);
    const text = this.bytes.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return text;
  }
}

export function decodeTags(raw: Buffer, declaredCount: number, rules: TagRules = 'arbundles'): Tag[] {
  if (declaredCount > maxTagCount(rules)) throw new InvalidDataItem(`tag count over ${maxTagCount(rules)}`);
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
  const limits = lengths(rules);
  for (let i = 0; i < declaredCount; i++) {
    const name = reader.readString('name', limits.name);
    const value = reader.readString('value', limits.value);
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

import { expect } from 'chai';
import { deserializeTags, serializeTags } from 'arbundles';
import { InvalidDataItem } from '../../src/domain/errors.js';
import { decodeTags, encodeTags, type Tag, type TagRules } from '../../src/verify/index.js';
import { randomTags } from './support/items.js';
import { seededRandom } from '../support/seededRandom.js';

const failure = (raw: Buffer, count: number, rules: TagRules): unknown => {
  try {
    return decodeTags(raw, count, rules);
  } catch (error) {
    return error;
  }
};

const expectRejected = (raw: Buffer, count: number, detail: string, rules: TagRules = 'arbundles') => {
  const error = failure(raw, count, rules);
  expect(error).to.be.instanceOf(InvalidDataItem);
  expect((error as InvalidDataItem).detail).to.equal(detail);
};

const tag = (name: string, value: string): Tag => ({ name, value });

describe('ANS-104 tag decoding', () => {
  it('encodes exactly as arbundles serializeTags and decodes back, for 300 random tag lists', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 300; i++) {
      const tags = randomTags(random);
      const raw = encodeTags(tags);
      expect(raw.toString('hex'), `case ${i}`).to.equal(serializeTags(tags).toString('hex'));
      expect(decodeTags(raw, tags.length)).to.deep.equal(tags);
    }
  });

  it('decodes no tags from no bytes', () => {
    expect(decodeTags(Buffer.alloc(0), 0)).to.deep.equal([]);
  });

  it('rejects an Avro empty array where no tags means no bytes', () => {
    expectRejected(Buffer.from([0]), 0, 'no tags declared but 1 tag bytes');
  });

  it('rejects a count that differs from the declared one', () => {
    expectRejected(encodeTags([tag('a', 'b')]), 2, 'tag block holds 1 tags, header declares 2');
  });

  it('rejects two tags split over two Avro blocks, which arbundles reads as two tags', () => {
    const raw = Buffer.from([2, 2, 0x61, 2, 0x62, 2, 2, 0x63, 2, 0x64, 0]);
    expect(deserializeTags(raw)).to.deep.equal([tag('a', 'b'), tag('c', 'd')]);
    expectRejected(raw, 2, 'tag block holds 1 tags, header declares 2');
  });

  it('rejects a negative block count with a byte size, which arbundles reads as one tag', () => {
    const raw = Buffer.from([1, 8, 2, 0x61, 2, 0x62, 0]);
    expect(deserializeTags(raw)).to.deep.equal([tag('a', 'b')]);
    expectRejected(raw, 1, 'tag block holds -1 tags, header declares 1');
  });

  it('rejects a padded (non-minimal) length varint, which arbundles reads as the same tag', () => {
    const raw = Buffer.from([2, 0x82, 0x00, 0x61, 2, 0x62, 0]);
    expect(deserializeTags(raw)).to.deep.equal([tag('a', 'b')]);
    expectRejected(raw, 1, 'tags are not canonically encoded');
  });

  it('rejects bytes that are not UTF-8', () => {
    expectRejected(Buffer.from([2, 2, 0xff, 2, 0x62, 0]), 1, 'tags are not canonically encoded');
  });

  it('keeps a leading byte order mark as part of the name', () => {
    const tags = [tag('\uFEFFname', 'v')];
    expect(decodeTags(encodeTags(tags), 1)).to.deep.equal(tags);
  });

  it('accepts empty names and empty values by default, as arbundles reads them', () => {
    for (const raw of [Buffer.from([2, 0, 2, 0x62, 0]), Buffer.from([2, 2, 0x61, 0, 0]), Buffer.from([2, 0, 0, 0])]) {
      expect(decodeTags(raw, 1)).to.deep.equal(deserializeTags(raw));
    }
    expect(decodeTags(Buffer.from([2, 2, 0x61, 0, 0]), 1)).to.deep.equal([tag('a', '')]);
  });

  it('rejects empty names and empty values under strict tag rules', () => {
    expectRejected(Buffer.from([2, 0, 2, 0x62, 0]), 1, 'tag name of 0 bytes, expected 1..1024', 'strict');
    expectRejected(Buffer.from([2, 2, 0x61, 0, 0]), 1, 'tag value of 0 bytes, expected 1..3072', 'strict');
  });

  it('accepts names and values of any length within the 4096 tag bytes by default, as arbundles does', () => {
    const tags = [tag('n'.repeat(2000), ''), tag('', 'v'.repeat(2000))];
    expect(decodeTags(encodeTags(tags), 2)).to.deep.equal(tags);
  });

  it('accepts 129 tags by default and rejects them under strict tag rules', () => {
    const tags = Array.from({ length: 129 }, (_, i) => tag(`n${i}`, ''));
    expect(decodeTags(encodeTags(tags), 129)).to.deep.equal(tags);
    expectRejected(encodeTags(tags), 129, 'tag count over 128', 'strict');
  });

  it('under strict tag rules, accepts a 1024-byte name and a 3072-byte value, and rejects one byte more of either', () => {
    expect(decodeTags(encodeTags([tag('n'.repeat(1024), 'v')]), 1, 'strict')).to.have.length(1);
    expect(decodeTags(encodeTags([tag('n', 'v'.repeat(3072))]), 1, 'strict')).to.have.length(1);
    expectRejected(encodeTags([tag('n'.repeat(1025), 'v')]), 1, 'tag name of 1025 bytes, expected 1..1024', 'strict');
    expectRejected(encodeTags([tag('n', 'v'.repeat(3073))]), 1, 'tag value of 3073 bytes, expected 1..3072', 'strict');
  });

  it('counts limits in UTF-8 bytes, not characters', () => {
    expectRejected(encodeTags([tag('é'.repeat(513), 'v')]), 1, 'tag name of 1026 bytes, expected 1..1024', 'strict');
  });

  it('rejects a string running past the tag bytes, a missing terminator and trailing bytes', () => {
    expectRejected(Buffer.from([2, 2, 0x61, 6, 0x62, 0]), 1, 'tag value runs past the tag bytes');
    expectRejected(Buffer.from([2, 2, 0x61, 2, 0x62]), 1, 'tag bytes end inside a number');
    expectRejected(Buffer.from([2, 2, 0x61, 2, 0x62, 2]), 1, 'tag array not terminated after the declared tags');
    expectRejected(Buffer.from([2, 2, 0x61, 2, 0x62, 0, 0]), 1, '1 bytes after the tag array');
  });

  it('rejects numbers longer than any valid tag section needs before reading on', () => {
    expectRejected(Buffer.from([0x80, 0x80, 0x80, 0x01]), 1, 'tag number too long');
  });
});

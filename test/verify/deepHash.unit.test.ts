import { expect } from 'chai';
import { deepHash as arbundlesDeepHash } from 'arbundles';
import { deepHash, DeepHashList, StreamingBlobHash, type DeepHashChunk } from '../../src/verify/index.js';
import { randomBytes, randomInt } from './support/items.js';
import { seededRandom } from '../support/seededRandom.js';

function randomChunk(random: () => number, depth: number): DeepHashChunk {
  if (depth === 0 || random() < 0.5) return randomBytes(random, random() < 0.2 ? 0 : randomInt(random, 1, 300));
  return Array.from({ length: randomInt(random, 0, 5) }, () => randomChunk(random, depth - 1));
}

async function* pieces(random: () => number, bytes: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length;) {
    const size = randomInt(random, 1, 5000);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

describe('deep hash', () => {
  it('equals arbundles deepHash on 300 random nested inputs', async () => {
    const random = seededRandom(104);
    for (let i = 0; i < 300; i++) {
      const chunk = randomChunk(random, 4);
      const expected = Buffer.from(await arbundlesDeepHash(chunk as Parameters<typeof arbundlesDeepHash>[0]));
      expect(deepHash(chunk).toString('hex'), `case ${i}`).to.equal(expected.toString('hex'));
    }
  });

  it('hashes a blob fed in random pieces as arbundles hashes the same stream', async () => {
    const random = seededRandom(7);
    for (const length of [0, 1, 47, 48, 49, 65_536, 200_001]) {
      const bytes = randomBytes(random, length);
      const streamed = new StreamingBlobHash();
      for await (const piece of pieces(random, bytes)) streamed.update(piece);
      const expected = Buffer.from(await arbundlesDeepHash(pieces(random, bytes)));
      expect(streamed.byteLength).to.equal(length);
      expect(streamed.digest().toString('hex'), `length ${length}`).to.equal(expected.toString('hex'));
      expect(deepHash(bytes).toString('hex')).to.equal(expected.toString('hex'));
    }
  });

  it('builds a list element by element with a streamed last element', async () => {
    const random = seededRandom(11);
    const head = [randomBytes(random, 10), randomBytes(random, 0)];
    const tail = randomBytes(random, 100_000);
    const list = new DeepHashList(3);
    for (const element of head) list.add(deepHash(element));
    const streamed = new StreamingBlobHash();
    for await (const piece of pieces(random, tail)) streamed.update(piece);
    const expected = Buffer.from(await arbundlesDeepHash([...head, tail]));
    expect(list.add(streamed.digest()).digest().toString('hex')).to.equal(expected.toString('hex'));
  });

  it('refuses a list digest with elements missing or one too many', () => {
    const list = new DeepHashList(1);
    expect(() => list.digest()).to.throw('deep hash list has 0 of 1 elements');
    list.add(deepHash(Buffer.alloc(1)));
    expect(() => list.add(deepHash(Buffer.alloc(1)))).to.throw('deep hash list of 1 already complete');
  });
});

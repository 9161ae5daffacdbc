import { expect } from 'chai';
import { HashList } from '../../src/bundling/hashList.js';

describe('hash list', () => {
  const hashOf = (n: number) => new Uint8Array(32).fill(n);

  it('keeps every hash and end offset through growth', () => {
    const list = new HashList(2);
    for (let i = 0; i < 100; i++) list.push(hashOf(i), i * 1000 + 2 ** 40 + i);
    expect(list.length).to.equal(100);
    for (const i of [0, 1, 2, 63, 64, 99]) {
      expect([...list.hash(i)], `hash ${i}`).to.deep.equal([...hashOf(i)]);
      expect(list.end(i), `end ${i}`).to.equal(i * 1000 + 2 ** 40 + i);
    }
  });

  it('refuses a hash that is not 32 bytes and an index past the end', () => {
    const list = new HashList();
    expect(() => list.push(new Uint8Array(31), 1)).to.throw(RangeError, 'a hash of 31 bytes');
    list.push(hashOf(1), 1);
    expect(() => list.hash(1)).to.throw(RangeError, 'no entry 1 of 1');
    expect(() => list.end(-1)).to.throw(RangeError, 'no entry -1 of 1');
  });
});

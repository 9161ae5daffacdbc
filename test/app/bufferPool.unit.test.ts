import { expect } from 'chai';
import { BufferPool } from '../../src/bufferPool.js';

describe('buffer pool', () => {
  it('lends buffers of its size and lends a given-back one again rather than a new one', () => {
    const pool = new BufferPool(1024, 2);
    const a = pool.take();
    const b = pool.take();
    expect([a.byteLength, b.byteLength]).to.deep.equal([1024, 1024]);
    expect(a).to.not.equal(b);
    expect(pool.lent).to.equal(2);
    pool.give(a);
    expect([pool.lent, pool.kept]).to.deep.equal([1, 1]);
    expect(pool.take()).to.equal(a);
    expect([pool.lent, pool.kept]).to.deep.equal([2, 0]);
  });

  it('keeps at most `keep` buffers between uses: the rest are dropped when given back', () => {
    const pool = new BufferPool(16, 2);
    const taken = [pool.take(), pool.take(), pool.take(), pool.take()];
    for (const buffer of taken) pool.give(buffer);
    expect([pool.lent, pool.kept]).to.deep.equal([0, 2]);
    const again = [pool.take(), pool.take(), pool.take()];
    // the two kept (last kept, first lent), then a new one
    expect(again.slice(0, 2)).to.deep.equal([taken[1], taken[0]]);
    expect(taken).to.not.include(again[2]);
  });

  it('refuses a buffer given back twice, or one it never lent, and lends it to nobody twice', () => {
    const pool = new BufferPool(16, 4);
    const a = pool.take();
    pool.give(a);
    expect(() => pool.give(a)).to.throw('a buffer given back to a pool that has not lent it (given twice?)');
    expect(() => pool.give(new Uint8Array(16))).to.throw('a buffer given back to a pool that has not lent it (given twice?)');
    expect(pool.kept).to.equal(1);
    const first = pool.take();
    const second = pool.take();
    expect(first).to.not.equal(second);
  });

  it('says what it has lent and not got back: a borrower that leaks shows', () => {
    const pool = new BufferPool(16, 4);
    pool.take();
    const b = pool.take();
    pool.give(b);
    expect(pool.lent).to.equal(1);
  });

  it('refuses sizes that are no size', () => {
    expect(() => new BufferPool(0, 1)).to.throw(RangeError, 'a pool of 1 buffers of 0 bytes');
    expect(() => new BufferPool(16, -1)).to.throw(RangeError, 'a pool of -1 buffers of 16 bytes');
  });
});

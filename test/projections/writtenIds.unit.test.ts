import { expect } from 'chai';
import { WrittenIds } from '../../projections/writtenIds.js';

describe('the ids written to a collection emptied by a rebuild (WrittenIds)', () => {
  it('answers "maybe" for every id added, across the filters it grows, and "no" for nearly all others', () => {
    const written = new WrittenIds();
    expect(written.mayHold('anything')).to.equal(false);
    // 300,000 ids: past the first filters' capacity (65,536, then 131,072)
    const added = Array.from({ length: 300_000 }, (_, i) => `item-${i}`);
    for (const id of added) written.add(id);
    expect(added.filter((id) => !written.mayHold(id))).to.deep.equal([]);
    const others = Array.from({ length: 100_000 }, (_, i) => `other-${i}`);
    // about 1% per filter; what matters is that few reads are spent on ids never written
    expect(others.filter((id) => written.mayHold(id)).length).to.be.below(3000);
  });
});

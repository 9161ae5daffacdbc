import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { seededRandom } from '../support/seededRandom.js';

describe('the test kit', () => {
  describe('eventually', () => {
    it('answers the first value read that satisfies done, reading no further', async () => {
      let reads = 0;
      const value = await eventually(
        async () => ++reads,
        (n) => n === 3,
        'the third read',
        10_000,
        0,
      );
      expect([value, reads]).to.deep.equal([3, 3]);
    });

    it('takes a plain condition with Boolean', async () => {
      let reads = 0;
      expect(await eventually(() => ++reads >= 2, Boolean, 'two reads', 10_000, 0)).to.equal(true);
    });

    it('fails after its deadline, naming what it waited for and the last value read (bigints too)', async () => {
      const error = await eventually(
        () => ({ at: 7n }),
        () => false,
        'a thing that never comes',
        50,
        5,
      ).catch((e: unknown) => e);
      expect((error as Error).message).to.equal('never happened within 50 ms: a thing that never comes (last read: {"at":"7"})');
    });
  });

  describe('seededRandom', () => {
    it('draws the same numbers from the same seed, called or through next()', () => {
      const [a, b] = [seededRandom(42), seededRandom(42)];
      const drawn = [a(), a.next(), a.int(1, 6), a()];
      expect([b.next(), b(), b.int(1, 6), b.next()]).to.deep.equal(drawn);
      expect(drawn[0]).to.equal(0.6011037519201636);
    });
  });
});

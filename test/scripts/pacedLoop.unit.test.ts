import { expect } from 'chai';
import { pacedLoop } from '../../scripts/bench/lib/httpLoad.js';

describe('the benchmarks’ paced load (pacedLoop)', () => {
  it('never has more steps out than allowed, and waits for every step it started', async () => {
    let out = 0;
    let most = 0;
    let ended = 0;
    const started = await pacedLoop(1_000_000, 3, performance.now() + 200, async () => {
      most = Math.max(most, ++out);
      await new Promise((resolve) => setTimeout(resolve, 5));
      out--;
      ended++;
    });
    expect(most).to.equal(3);
    expect(ended).to.equal(started);
  });

  it('starts no step once one has answered false', async () => {
    let calls = 0;
    const started = await pacedLoop(1_000_000, 1, Number.POSITIVE_INFINITY, async () => ++calls < 5);
    expect([started, calls]).to.deep.equal([5, 5]);
  });
});

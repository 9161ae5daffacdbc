import { expect } from 'chai';
import { batched } from '../../projections/batched.js';

/** an async source the test feeds: `push` makes an item ready, `end` finishes it */
function feed<T>() {
  const ready: T[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  async function* source(): AsyncGenerator<T> {
    for (;;) {
      if (ready.length > 0) yield ready.shift()!;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const poke = () => {
    wake?.();
    wake = undefined;
  };
  return {
    source: source(),
    push(...items: T[]) {
      ready.push(...items);
      poke();
    },
    end() {
      ended = true;
      poke();
    },
  };
}

/** a few turns of the event loop, timers included: what the batcher would take without a wait, it has taken */
const turns = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('projection batches (batched)', () => {
  it('takes what is ready in one turn as one batch, and an item that comes later as the next', async () => {
    const f = feed<number>();
    const batches = batched(f.source, 10);
    f.push(1, 2, 3);
    expect((await batches.next()).value).to.deep.equal([1, 2, 3]);
    const next = batches.next();
    await turns();
    f.push(4);
    expect((await next).value).to.deep.equal([4]);
    f.end();
    expect((await batches.next()).done).to.equal(true);
  });

  it('under load (more coming), lets a batch wait for what comes next, and ends it once nothing more is coming', async () => {
    const f = feed<number>();
    let coming = true;
    // a wait of ten minutes: a batch that waited it out would time the test out
    const batches = batched(f.source, 10, { ms: 600_000, moreComing: () => coming });
    const first = batches.next();
    f.push(1);
    await turns();
    f.push(2);
    await turns();
    coming = false;
    f.push(3);
    expect((await first).value).to.deep.equal([1, 2, 3]);
    f.end();
    expect((await batches.next()).done).to.equal(true);
  });

  it('takes a batch at once when nothing more is coming, however long the wait', async () => {
    const f = feed<number>();
    const batches = batched(f.source, 10, { ms: 600_000, moreComing: () => false });
    f.push(1);
    expect((await batches.next()).value).to.deep.equal([1]);
    f.end();
    expect((await batches.next()).done).to.equal(true);
  });

  it('takes a batch when the wait is over, when what was said to be coming never comes', async () => {
    const f = feed<number>();
    const batches = batched(f.source, 10, { ms: 20, moreComing: () => true });
    f.push(1);
    expect((await batches.next()).value).to.deep.equal([1]);
    f.push(2);
    expect((await batches.next()).value).to.deep.equal([2]);
    f.end();
    expect((await batches.next()).done).to.equal(true);
  });

  it('takes no more than its maximum in one batch while waiting', async () => {
    const f = feed<number>();
    const batches = batched(f.source, 2, { ms: 600_000, moreComing: () => true });
    f.push(1, 2, 3);
    expect((await batches.next()).value).to.deep.equal([1, 2]);
    f.end();
    expect((await batches.next()).value).to.deep.equal([3]);
  });
});

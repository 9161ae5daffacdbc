import { expect } from 'chai';
import { sharedSync } from '../../src/adapters/fs/sharedSync.js';

/** a sync whose runs the test ends one at a time, recording when each started */
function controlledSync() {
  const runs: { key: string; end: (error?: Error) => void }[] = [];
  const sync = (key: string) =>
    new Promise<void>((resolve, reject) => {
      runs.push({ key, end: (error) => (error ? reject(error) : resolve()) });
    });
  return { runs, sync };
}

/** lets every pending promise continuation run */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('sharedSync (a directory fsync shared by the renames into it)', () => {
  it('starts a sync at once when none runs', async () => {
    const { runs, sync } = controlledSync();
    const shared = sharedSync(sync);
    let done = false;
    void shared('items').then(() => (done = true));
    expect(runs.map((r) => r.key)).to.deep.equal(['items']);
    runs[0]!.end();
    await settle();
    expect(done).to.equal(true);
  });

  it('answers a caller that arrived during a sync only after a sync that started after it', async () => {
    const { runs, sync } = controlledSync();
    const shared = sharedSync(sync);
    const order: string[] = [];
    void shared('items').then(() => order.push('first'));
    void shared('items').then(() => order.push('second'));
    void shared('items').then(() => order.push('third'));
    // the second and third wait for a sync not yet started: the running one may have missed their change
    expect(runs).to.have.length(1);
    runs[0]!.end();
    await settle();
    expect(order).to.deep.equal(['first']);
    // one sync for both of them
    expect(runs).to.have.length(2);
    runs[1]!.end();
    await settle();
    expect(order).to.deep.equal(['first', 'second', 'third']);
    expect(runs).to.have.length(2);
  });

  it('starts a fresh sync for a caller that arrives after the others were served', async () => {
    const { runs, sync } = controlledSync();
    const shared = sharedSync(sync);
    void shared('items');
    runs[0]!.end();
    await settle();
    let done = false;
    void shared('items').then(() => (done = true));
    expect(runs).to.have.length(2);
    runs[1]!.end();
    await settle();
    expect(done).to.equal(true);
  });

  it('keeps the syncs of different directories apart', async () => {
    const { runs, sync } = controlledSync();
    const shared = sharedSync(sync);
    void shared('items');
    void shared('chunks');
    expect(runs.map((r) => r.key)).to.deep.equal(['items', 'chunks']);
  });

  it('gives a failed sync to its own callers only; the next callers get a sync of their own', async () => {
    const { runs, sync } = controlledSync();
    const shared = sharedSync(sync);
    const first = shared('items');
    const second = shared('items');
    runs[0]!.end(new Error('EIO'));
    expect(
      await first.then(
        () => 'synced',
        (error: Error) => error.message,
      ),
    ).to.equal('EIO');
    await settle();
    runs[1]!.end();
    expect(await second.then(() => 'synced')).to.equal('synced');
  });
});

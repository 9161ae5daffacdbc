import { expect } from 'chai';
import { createNestedIndexQueue } from '../../src/app/nested/indexQueue.js';

/** A run the test finishes by hand, recording what the queue handed it. */
function controlledRuns() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const signals = new Map<string, AbortSignal>();
  const index = (rootId: string, _metadata: unknown, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      started.push(rootId);
      signals.set(rootId, signal);
      finish.set(rootId, resolve);
      signal.addEventListener('abort', () => reject(signal.reason));
    });
  return { started, finish, signals, index };
}

const meta = { correlationId: 'queue-test' };
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the nested index queue', () => {
  it('runs at most `concurrency` roots at once, in the order they were queued', async () => {
    const runs = controlledRuns();
    const logged: string[] = [];
    const queue = createNestedIndexQueue({ index: runs.index, concurrency: 2, maxQueued: 10, log: (m) => logged.push(m) });
    for (const id of ['a', 'b', 'c', 'd']) expect(queue.enqueue(id, meta)).to.equal(true);
    expect(runs.started).to.deep.equal(['a', 'b']);
    expect(queue.size).to.equal(4);
    runs.finish.get('b')!();
    await settle();
    expect(runs.started).to.deep.equal(['a', 'b', 'c']);
    runs.finish.get('a')!();
    await settle();
    runs.finish.get('c')!();
    await settle();
    runs.finish.get('d')!();
    await queue.idle();
    expect(runs.started).to.deep.equal(['a', 'b', 'c', 'd']);
    expect(logged).to.deep.equal([]);
  });

  it('takes a root once while it is queued or running, and none past its bound', () => {
    const runs = controlledRuns();
    const queue = createNestedIndexQueue({ index: runs.index, concurrency: 1, maxQueued: 1, log: () => {} });
    expect(queue.enqueue('a', meta)).to.equal(true);
    expect(queue.enqueue('a', meta)).to.equal(false);
    expect(queue.enqueue('b', meta)).to.equal(true);
    expect(queue.enqueue('b', meta)).to.equal(false);
    expect(queue.enqueue('c', meta)).to.equal(false);
    expect(runs.started).to.deep.equal(['a']);
  });

  it('logs a failed run and goes on with the next', async () => {
    const logged: unknown[] = [];
    const queue = createNestedIndexQueue({
      index: async (rootId) => {
        if (rootId === 'bad') throw new Error('blob gone');
      },
      concurrency: 1,
      maxQueued: 10,
      log: (message, fields) => logged.push([message, fields]),
    });
    queue.enqueue('bad', meta);
    queue.enqueue('good', meta);
    await queue.idle();
    expect(logged).to.deep.equal([['indexing nested items failed; the recovery pass retries', { rootId: 'bad', error: 'Error: blob gone' }]]);
  });

  it('on stop, aborts the runs at work, drops what waits and takes nothing more', async () => {
    const runs = controlledRuns();
    const logged: string[] = [];
    const queue = createNestedIndexQueue({ index: runs.index, concurrency: 1, maxQueued: 10, log: (m) => logged.push(m) });
    queue.enqueue('a', meta);
    queue.enqueue('b', meta);
    await queue.stop();
    expect(runs.signals.get('a')!.aborted).to.equal(true);
    expect(runs.started).to.deep.equal(['a']);
    expect(queue.size).to.equal(0);
    expect(queue.enqueue('c', meta)).to.equal(false);
    expect(logged).to.deep.equal([]);
  });
});

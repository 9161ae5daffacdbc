import { expect } from 'chai';
import { createProjectionRunner } from '../../projections/runner.js';
import { allProjections, collectionOf, checkpointOf, txStatusProjection, receiptsProjection, nestedOffsetsProjection } from '../../projections/index.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { CheckpointWrite, DocumentWrite, ReadStore } from '../../src/ports/readStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { documentsOf, sqliteStoresEach } from './readModels.js';

const meta = { correlationId: 'test' };

async function accept(store: EventStore, n: number) {
  const e = dataItemAccepted(itemId(n), { winc: String(n) });
  return store.append(dataItemStream(itemId(n) as DataItemId), [toNewEvent(e, newEventId(), meta)], 'no_stream');
}

describe('projection runner', () => {
  const stores = sqliteStoresEach('runner-');
  let events: EventStore;
  let reads: ReadStore;
  beforeEach(() => ({ events, reads } = stores));

  it('catches up with past events, follows live ones, and writes checkpoints with the documents', async () => {
    for (let n = 1; n <= 30; n++) await accept(events, n);
    const runner = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections, batchSize: 7 });
    await runner.start();
    const { position } = await accept(events, 31);
    expect(await runner.waitFor(position, 5000)).to.equal(true);
    await runner.stop();
    for (const n of [1, 15, 31]) {
      expect((await reads.get<{ winc: string }>(collectionOf(txStatusProjection), itemId(n)))?.doc.winc).to.equal(String(n));
      expect((await reads.get<{ id: string }>(collectionOf(receiptsProjection), itemId(n)))?.doc.id).to.equal(itemId(n));
    }
    for (const p of allProjections) expect(await reads.getCheckpoint(checkpointOf(p))).to.equal(position);
  });

  it('changes nothing when the events are projected again from position 0', async () => {
    for (let n = 1; n <= 5; n++) await accept(events, n);
    const first = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await first.start();
    expect(await first.waitFor(await events.headPosition(), 5000)).to.equal(true);
    await first.stop();
    const before = await reads.getMany(collectionOf(txStatusProjection), [1, 2, 3, 4, 5].map(itemId));

    for (const p of allProjections) await reads.deleteCheckpoint(checkpointOf(p));
    const again = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await again.start();
    expect(await again.waitFor(await events.headPosition(), 5000)).to.equal(true);
    await again.stop();
    const after = await reads.getMany(collectionOf(txStatusProjection), [1, 2, 3, 4, 5].map(itemId));
    expect([...after.entries()]).to.deep.equal([...before.entries()]);
  });

  it('resumes after its checkpoint when restarted', async () => {
    await accept(events, 1);
    const first = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await first.start();
    expect(await first.waitFor(await events.headPosition(), 5000)).to.equal(true);
    await first.stop();
    await accept(events, 2);
    const second = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await second.start();
    expect(second.position()).to.equal((await events.headPosition()) - 1n);
    expect(await second.waitFor(await events.headPosition(), 5000)).to.equal(true);
    await second.stop();
    expect((await reads.get(collectionOf(txStatusProjection), itemId(2)))?.position).to.equal(await events.headPosition());
  });

  it('runs one of two runners holding a lease, and the other takes over when the first stops', async () => {
    const lease = (holder: string) => () => reads.tryLease('projector', holder, 300, Date.now());
    const first = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections, holdLease: lease('first'), leaseRenewMs: 50 });
    await first.start();
    const second = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections, holdLease: lease('second'), leaseRenewMs: 50 });
    await second.start();
    const { position: p1 } = await accept(events, 1);
    expect(await first.waitFor(p1, 5000)).to.equal(true);
    expect(await second.waitFor(p1, 5000)).to.equal(true);
    await first.stop();
    const { position: p2 } = await accept(events, 2);
    expect(await second.waitFor(p2, 10_000)).to.equal(true);
    await second.stop();
    expect((await reads.get(collectionOf(txStatusProjection), itemId(2)))?.position).to.equal(p2);
  });

  it('commits a batch of large nested indexes a slice at a time, each with its checkpoints, giving the event loop back between slices', async () => {
    // four roots, each with an index of 1000 nested items: one batch of catch-up
    for (let n = 1; n <= 4; n++) {
      const root = itemId(n);
      const items = Array.from({ length: 1000 }, (_, i) => ({
        id: itemId(10_000 * n + i),
        parentId: root,
        startOffsetInParentDataItemPayload: 64_032 + 10 * i,
        offsetInRootItem: 65_076 + 10 * i,
        rawContentLength: 10,
        payloadDataStart: 4,
        payloadContentType: 'text/plain',
        depth: 1,
      }));
      const stream = dataItemStream(root as DataItemId);
      await events.append(stream, [toNewEvent(dataItemAccepted(root, { nestedBundle: true }), newEventId(), meta)], 'no_stream');
      await events.append(
        stream,
        [toNewEvent({ type: 'NestedItemsIndexed', data: { id: root, items, timestamp: 1, verified: true } }, newEventId(), meta)],
        0n,
      );
    }
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const commits: { turn: number; nested: DocumentWrite[]; checkpoints: readonly CheckpointWrite[] }[] = [];
    const observed: ReadStore = Object.create(reads, {
      commit: {
        value: (writes: readonly DocumentWrite[], checkpoints: readonly CheckpointWrite[]) => {
          commits.push({ turn: turns, nested: writes.filter((w) => w.collection === collectionOf(nestedOffsetsProjection)), checkpoints });
          return reads.commit(writes, checkpoints);
        },
      },
    });
    const runner = createProjectionRunner({ eventStore: events, readStore: observed, projections: allProjections });
    await runner.start();
    expect(await runner.waitFor(await events.headPosition(), 10_000)).to.equal(true);
    await runner.stop();
    ticking = false;

    expect(commits.filter((c) => c.nested.length > 0).map((c) => c.nested.length)).to.deep.equal([1000, 1000, 1000, 1000]);
    for (const [i, commit] of commits.entries()) {
      // each commit moves every checkpoint to the last position its documents reflect
      const positions = new Set(commit.checkpoints.map((c) => c.position));
      expect(positions.size).to.equal(1);
      for (const w of commit.nested) expect(w.position <= [...positions][0]!).to.equal(true);
      if (i > 0) expect(commit.turn, `turns before commit ${i}`).to.be.greaterThan(commits[i - 1]!.turn);
    }
    expect(await documentsOf(reads, collectionOf(nestedOffsetsProjection))).to.have.length(4000);
  });

  it('answers false when asked to wait for a position it does not reach in time', async () => {
    const runner = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await runner.start();
    expect(await runner.waitFor(1000n, 50)).to.equal(false);
    await runner.stop();
  });
});

import { expect } from 'chai';
import type { EventStore } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { createProjectionRunner } from '../../projections/runner.js';
import { rebuild, rebuildRefOf } from '../../projections/rebuild.js';
import { accountBalanceProjection, allProjections, checkpointOf, collectionOf, txStatusProjection } from '../../projections/index.js';
import { appendUploads, documentsOf, freshReadModels, readModelsOf, sqliteStoresEach } from './readModels.js';
import { itemId } from '../support/events.js';

describe('rebuild of read models', () => {
  const stores = sqliteStoresEach('rebuild-');
  let events: EventStore;
  let reads: ReadStore;
  beforeEach(() => ({ events, reads } = stores));

  async function projectLive(): Promise<void> {
    const runner = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await runner.start();
    expect(await runner.waitFor(await events.headPosition(), 5000)).to.equal(true);
    await runner.stop();
  }

  /** a live document gone wrong, as a bug or a hand edit leaves it */
  async function corrupt(collection: string, id: string) {
    const stored = await reads.get(collection, id);
    await reads.commit([{ collection, id, doc: { corrupt: true }, position: stored!.position }], []);
  }

  it('builds every read model again beside the live ones and switches to them, as a projection from scratch makes them', async () => {
    const head = await appendUploads(events, 1, 6);
    await projectLive();
    await corrupt(collectionOf(txStatusProjection), itemId(2));
    // what an interrupted rebuild left behind
    const leftover = rebuildRefOf(txStatusProjection);
    await reads.commit([{ collection: leftover.collection, id: 'stale', doc: {}, position: 1n }], [{ name: leftover.checkpoint, position: 1n }]);

    const result = await rebuild({ eventStore: events, readStore: reads, projections: allProjections, batchSize: 4 });

    expect(result).to.deep.equal({
      events: Number(head),
      promoted: allProjections.map((p) => ({ collection: collectionOf(p), position: head })),
      dropped: [],
    });
    expect(await readModelsOf(reads, allProjections)).to.deep.equal(await freshReadModels(events, allProjections));
    for (const p of allProjections) {
      expect(await documentsOf(reads, rebuildRefOf(p).collection)).to.deep.equal([]);
      expect(await reads.getCheckpoint(rebuildRefOf(p).checkpoint)).to.equal(undefined);
    }
  });

  it('rebuilds only the projections it is given', async () => {
    await appendUploads(events, 1, 3);
    await projectLive();
    await corrupt(collectionOf(txStatusProjection), itemId(1));
    await corrupt(collectionOf(accountBalanceProjection), 'payer-1');

    await rebuild({ eventStore: events, readStore: reads, projections: [txStatusProjection] });

    const fresh = await freshReadModels(events, allProjections);
    const now = await readModelsOf(reads, allProjections);
    expect(now[collectionOf(txStatusProjection)]).to.deep.equal(fresh[collectionOf(txStatusProjection)]);
    expect((await reads.get(collectionOf(accountBalanceProjection), 'payer-1'))?.doc).to.deep.equal({ corrupt: true });
  });

  it('reports after each batch the events read, the total, and the average rate', async () => {
    const head = await appendUploads(events, 1, 2);
    expect(head).to.equal(9n);
    const clock = [0, 1000, 2000, 4000];
    const reports: number[][] = [];
    await rebuild({
      eventStore: events,
      readStore: reads,
      projections: allProjections,
      batchSize: 4,
      now: () => clock.shift()!,
      onProgress: (done, total, rate) => void reports.push([done, total, rate]),
    });
    // SQLite numbers events 1..n, so the total is known from the first batch
    expect(reports).to.deep.equal([
      [4, 9, 4],
      [8, 9, 4],
      [9, 9, 2.25],
    ]);
  });

  it('reads what was appended while it switched, and switches once the live runner is no longer ahead', async () => {
    await appendUploads(events, 1, 2);
    const live = createProjectionRunner({ eventStore: events, readStore: reads, projections: allProjections });
    await live.start();
    const answers: boolean[] = [];
    let raced = false;
    const racing: ReadStore = {
      ...reads,
      // before the first promote: an upload arrives and the live runner projects it
      async promote(from, to) {
        if (!raced) {
          raced = true;
          expect(await live.waitFor(await appendUploads(events, 3, 3), 5000)).to.equal(true);
        }
        const promoted = await reads.promote(from, to);
        answers.push(promoted);
        return promoted;
      },
    };
    const result = await rebuild({ eventStore: events, readStore: racing, projections: [txStatusProjection] });
    const head = await events.headPosition();
    expect(await live.waitFor(head, 5000)).to.equal(true);
    await live.stop();
    expect(answers).to.deep.equal([false, true]);
    expect(result.promoted).to.deep.equal([{ collection: collectionOf(txStatusProjection), position: head }]);
    expect(await readModelsOf(reads, allProjections)).to.deep.equal(await freshReadModels(events, allProjections));
  });

  it('drops the read models and checkpoints of older versions when asked', async () => {
    await appendUploads(events, 1, 2);
    const v3 = { ...txStatusProjection, version: 3 };
    for (const name of ['tx-status_v1', 'tx-status_v2']) {
      await reads.commit([{ collection: name, id: 'old', doc: {}, position: 1n }], [{ name, position: 1n }]);
    }
    const result = await rebuild({ eventStore: events, readStore: reads, projections: [v3], dropOld: true });
    expect(result.dropped).to.deep.equal(['tx-status_v1', 'tx-status_v2']);
    for (const name of ['tx-status_v1', 'tx-status_v2']) {
      expect(await documentsOf(reads, name)).to.deep.equal([]);
      expect(await reads.getCheckpoint(name)).to.equal(undefined);
    }
    expect((await documentsOf(reads, 'tx-status_v3')).map((d) => d.id)).to.deep.equal([itemId(1), itemId(2)]);
    expect(await reads.getCheckpoint(checkpointOf(v3))).to.equal(await events.headPosition());
  });

  it('switches nothing when the event store is empty', async () => {
    expect(await rebuild({ eventStore: events, readStore: reads, projections: allProjections })).to.deep.equal({ events: 0, promoted: [], dropped: [] });
    expect(await reads.getCheckpoint(checkpointOf(txStatusProjection))).to.equal(undefined);
  });

  it('replaces live read models whose checkpoints are beyond the last event (an older event store put back) with the events there are', async () => {
    const head = await appendUploads(events, 1, 1);
    await projectLive();
    // read models of a newer event store: documents and checkpoints beyond this store's last event
    await reads.commit(
      [{ collection: collectionOf(txStatusProjection), id: 'gone', doc: { newer: true }, position: 99n }],
      [{ name: checkpointOf(txStatusProjection), position: 99n }],
    );
    await reads.commit([], [{ name: checkpointOf(accountBalanceProjection), position: 98n }]);

    const result = await rebuild({ eventStore: events, readStore: reads, projections: allProjections });

    // those ahead are switched last, once the rebuild has read to the end and still finds them ahead
    expect(result.promoted).to.have.deep.members(allProjections.map((p) => ({ collection: collectionOf(p), position: head })));
    expect(result.promoted.slice(-2).map((p) => p.collection)).to.have.members([collectionOf(txStatusProjection), collectionOf(accountBalanceProjection)]);
    expect(await readModelsOf(reads, allProjections)).to.deep.equal(await freshReadModels(events, allProjections));
    for (const p of allProjections) expect(await reads.getCheckpoint(checkpointOf(p)), p.name).to.equal(head);
  });

  it('empties the live read models of an event store that holds no event any more (deleted)', async () => {
    await reads.commit(
      [{ collection: collectionOf(txStatusProjection), id: 'gone', doc: { newer: true }, position: 7n }],
      [{ name: checkpointOf(txStatusProjection), position: 7n }],
    );

    const result = await rebuild({ eventStore: events, readStore: reads, projections: [txStatusProjection, accountBalanceProjection] });

    expect(result).to.deep.equal({
      events: 0,
      // the one without a checkpoint first, then the one ahead
      promoted: [
        { collection: collectionOf(accountBalanceProjection), position: 0n },
        { collection: collectionOf(txStatusProjection), position: 0n },
      ],
      dropped: [],
    });
    expect(await documentsOf(reads, collectionOf(txStatusProjection))).to.deep.equal([]);
    expect(await reads.getCheckpoint(checkpointOf(txStatusProjection))).to.equal(0n);
  });
});

import { expect } from 'chai';
import type { EventStore } from '../../src/ports/eventStore.js';
import { CheckpointConflict, type ReadStore } from '../../src/ports/readStore.js';
import { createProjectionRunner } from '../../projections/runner.js';
import { rebuild } from '../../projections/rebuild.js';
import { accountBalanceProjection, allProjections, checkpointOf, collectionOf } from '../../projections/index.js';
import { appendUploads, freshReadModels, readModelsOf, sqliteStoresEach } from './readModels.js';

describe('a live runner racing a rebuild', () => {
  const stores = sqliteStoresEach('rebuild-race-');
  let events: EventStore;
  let reads: ReadStore;
  beforeEach(() => ({ events, reads } = stores));

  it('discards the batch it computed from documents a promote replaced, and resumes from the promoted checkpoint', async () => {
    const first = await appendUploads(events, 1, 1);
    const logged: [string, unknown][] = [];
    let armed = false;
    let promotedAt: bigint | undefined;
    const racing: ReadStore = {
      ...reads,
      // the runner has computed its next batch from the live documents; a rebuild promotes before it commits
      async commit(writes, checkpoints) {
        if (armed) {
          armed = false;
          promotedAt = (await rebuild({ eventStore: events, readStore: reads, projections: allProjections })).promoted[0]?.position;
        }
        return reads.commit(writes, checkpoints);
      },
    };
    const live = createProjectionRunner({ eventStore: events, readStore: racing, projections: allProjections, log: (m, e) => void logged.push([m, e]) });
    await live.start();
    expect(await live.waitFor(first, 5000)).to.equal(true);
    // the repair the rebuild is for: a wrong live document, from which the runner computes its next batch
    const account = collectionOf(accountBalanceProjection);
    const stored = await reads.get<{ credited: string }>(account, 'payer-1');
    await reads.commit([{ collection: account, id: 'payer-1', doc: { ...stored!.doc, credited: '999999' }, position: stored!.position }], []);

    armed = true;
    const head = await appendUploads(events, 4, 4);
    expect(await live.waitFor(head, 5000)).to.equal(true);
    await live.stop();

    expect(logged.map(([message]) => message)).to.deep.equal(['projection checkpoint moved by another writer; resuming from the stored checkpoints']);
    const conflict = logged[0]![1];
    expect(conflict).to.be.instanceOf(CheckpointConflict);
    expect(conflict).to.include({ checkpoint: checkpointOf(allProjections[0]!), expected: first, actual: promotedAt });
    // without the compare-and-set, the discarded batch would have written credited 999999 + 100 back
    expect((await reads.get<{ credited: string }>(account, 'payer-1'))?.doc.credited).to.equal('200');
    expect(await readModelsOf(reads, allProjections)).to.deep.equal(await freshReadModels(events, allProjections));
  });
});

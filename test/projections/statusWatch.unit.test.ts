import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createProjectionRunner, type ProjectionRunner } from '../../projections/runner.js';
import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { toNewEvent, type DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { bundleStream } from '../../src/domain/bundle/ids.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import type { StreamName } from '../../src/ports/eventStore.js';
import { createLiveFeed, type LiveFeed } from '../../src/queries/liveFeed.js';
import { openStatusWatch, type StatusChange } from '../../src/queries/statusWatch.js';
import { itemStatusStream } from '../../src/queries/statusStreams.js';
import { eventually } from '../support/eventually.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { sqliteStoresEach } from './readModels.js';

/** src/queries/statusWatch.ts on the real SQLite stores and projection runner: the first message and the changes after it. */
describe("an item's status watch", () => {
  const stores = sqliteStoresEach('status-watch-');
  const id = itemId(1);
  let runner: ProjectionRunner | undefined;
  let feed: LiveFeed;
  const planId = randomUUID();
  const append = (stream: StreamName, event: DomainEvent) => stores.events.append(stream, [toNewEvent(event, newEventId(), { correlationId: 'spec' })], 'any');
  const planned: DomainEvent = {
    type: 'BundlePlanned',
    data: { planId, timestamp: 2, items: [{ id, size: 1100, offset: 64 }], headerSize: 64, totalSize: 1164 },
  };
  beforeEach(async () => {
    feed = createLiveFeed({ eventStore: stores.events, log: () => {} });
    await append(dataItemStream(id as DataItemId), dataItemAccepted(id));
    runner = createProjectionRunner({ eventStore: stores.events, readStore: stores.reads, projections: [txStatusProjection] });
    await runner.start();
    expect(await runner.waitFor(await stores.events.headPosition(), 5000)).to.equal(true);
    await runner.stop();
    runner = undefined;
  });
  afterEach(async () => {
    await feed.stop();
    await runner?.stop();
  });

  /** the read store, whose checkpoint's first read starts the runner: the read model catches up only while the watch waits for it */
  const catchingUpWhenAsked = (): ReadStore => {
    const reads = stores.reads;
    return Object.assign(Object.create(reads) as ReadStore, {
      getCheckpoint: (name: string) => {
        if (!runner) {
          runner = createProjectionRunner({ eventStore: stores.events, readStore: reads, projections: [txStatusProjection] });
          void runner.start();
        }
        return reads.getCheckpoint(name);
      },
      get: <T>(collection: string, docId: string) => reads.get<T>(collection, docId),
    });
  };

  it('waits for the read model to pass the live feed, so a change recorded before the stream opened is in its first message', async () => {
    const { position } = await append(bundleStream(planId), planned);
    const sent: StatusChange<TxStatusDocument>[] = [];
    const opening = await openStatusWatch({ feed, readStore: catchingUpWhenAsked(), catchUpMs: 30_000, maxPending: 100 }, itemStatusStream, id, {
      send: (c) => sent.push(c),
      end: () => {},
    });
    expect(opening.state).to.equal('open');
    if (opening.state !== 'open') return;
    expect(opening.first).to.deep.include({ event: 'bundled', current: true, position, terminal: false });
    expect(opening.first!.doc).to.deep.include({ status: 'CONFIRMED', info: 'pending', planId, startOffsetInRootBundle: 64 });

    const posted = await append(bundleStream(planId), { type: 'BundlePosted', data: { planId, timestamp: 3, txId: 'tx' } });
    await eventually(
      () => sent.length,
      (n) => n === 1,
      'the posted change',
    );
    expect(sent[0]).to.deep.include({ event: 'posted', position: posted.position, at: 3, facts: { bundleId: 'tx' }, terminal: false });
    opening.close();
    expect(feed.listeners()).to.equal(0);
  });

  it('is refused as behind when the read model does not reach the live feed in time', async () => {
    await append(bundleStream(planId), planned);
    const opening = await openStatusWatch({ feed, readStore: stores.reads, catchUpMs: 200, maxPending: 100 }, itemStatusStream, id, {
      send: () => {},
      end: () => {},
    });
    expect(opening).to.deep.equal({ state: 'behind' });
    expect(feed.listeners()).to.equal(0);
  });
});

import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { acceptDataItem } from '../../src/app/acceptance/acceptDataItem.js';
import { receiveDataItem, type ReceivedDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import type { DataItemId } from '../../src/domain/ids.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { EventStoreUnavailable } from '../../src/ports/eventStore.js';
import { bytesOf } from '../blobStore/support.js';
import { signedItem, signers } from '../support/items.js';
import { refusingEventStore, type RefusingEventStore } from '../support/refusingEventStore.js';
import { openSqliteEventStoreWithConnection } from '../support/sqliteEventStoreConnection.js';
import { startTestService, type TestService } from '../support/testService.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';

describe('two uploads of the same item whose acceptances meet a store fault', function () {
  this.timeout(60_000);
  let service: TestService;
  let events: RefusingEventStore;
  let eventsDb: Database.Database;
  beforeEach(async function () {
    service = await startTestService({}, async (dataDir) => {
      const { store: eventStore, db } = openSqliteEventStoreWithConnection({ path: join(dataDir, 'events.db') });
      eventsDb = db;
      events = refusingEventStore(eventStore, eventsDb);
      return { eventStore: events.store };
    });
  });
  afterEach(() => service.close());

  /** the same item received twice, as by two requests; `log` records each commit of its bytes */
  async function twice(raw: Uint8Array, log: string[]): Promise<[ReceivedDataItem, ReceivedDataItem]> {
    const receive = async (name: string): Promise<ReceivedDataItem> => {
      const received = await receiveDataItem([raw], { blobStore: service.blobStore, maxSize: 1024 * 1024 });
      return {
        ...received,
        commit: async (key) => {
          log.push(`${name} commits`);
          await received.commit(key);
        },
      };
    };
    return [await receive('first'), await receive('second')];
  }

  /** the acceptance deps of the running service, over `eventStore`, recording the item's appends in `log` */
  const depsWith = (eventStore: EventStore, log: string[]) => {
    const logged = {
      ...eventStore,
      append: async (...args: Parameters<EventStore['append']>) => {
        const [stream] = args;
        if (!stream.startsWith('dataItem-')) return eventStore.append(...args);
        log.push('append starts');
        try {
          return await eventStore.append(...args);
        } finally {
          log.push('append settles');
        }
      },
    } as EventStore;
    return { ...service.multipart.accept, eventStore: logged, items: new DataItemRepository(logged) };
  };

  it("keeps the winner's bytes when the other acceptance fails for another reason than the conflict (a read-only store)", async function () {
    const item = await signedItem(signers.arweave());
    const log: string[] = [];
    const [first, second] = await twice(item.getRaw(), log);
    let appends = 0;
    // the first acceptance is recorded; the second meets a read-only file, not the "stream exists" conflict
    events.refuse((stream) => stream.startsWith('dataItem-') && ++appends === 2);
    const ctx = { requestId: 'test' };
    const outcomes = await Promise.allSettled([
      acceptDataItem(first, { token: 'arweave', ctx }, depsWith(events.store, log)),
      acceptDataItem(second, { token: 'arweave', ctx }, depsWith(events.store, log)),
    ]);
    expect(outcomes[0]).to.deep.include({ status: 'fulfilled' });
    expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(EventStoreUnavailable);
    expect((await service.items.read(item.id)).status).to.equal('accepted');
    expect((await bytesOf(await service.blobStore.read(`items/${item.id}`))).equals(item.getRaw())).to.equal(true);
    // one acceptance of the item at a time: the second commits only once the first's append settled
    expect(log).to.deep.equal(['first commits', 'append starts', 'append settles', 'second commits', 'append starts', 'append settles']);
  });
});

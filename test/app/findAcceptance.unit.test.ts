import { expect } from 'chai';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { findAcceptance } from '../../src/app/acceptance/unknownAcceptance.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { EventStoreUnavailable, type EventStore } from '../../src/ports/eventStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';

const id = itemId(1) as DataItemId;
const payment = { payer: 'payer', reservationId: 'r-ours', winc: 300n };

describe('after an append of unknown outcome, the item stream read back', () => {
  let store: EventStore;
  beforeEach(() => {
    store = openSqliteEventStore({ path: ':memory:' });
  });
  afterEach(() => store.close());

  const accepted = (reservationId?: string) =>
    store.append(
      dataItemStream(id),
      [toNewEvent(dataItemAccepted(id, reservationId ? { payer: 'payer', reservationId, winc: '300' } : {}), newEventId(), { correlationId: 't' })],
      'no_stream',
    );

  it("finds this upload's acceptance by its reservation, with the receipt and position it was recorded with", async () => {
    const { position } = await accepted('r-ours');
    const found = await findAcceptance(new DataItemRepository(store), id, payment);
    expect(found.kind).to.equal('ours');
    expect(found).to.deep.include({ position });
    expect((found as { receipt: { id: string } }).receipt.id).to.equal(id);
  });

  it("finds another upload's acceptance (another reservation, or free): this one's reservation is not owed", async () => {
    await accepted('r-theirs');
    expect((await findAcceptance(new DataItemRepository(store), id, payment)).kind).to.equal('theirs');
    expect((await findAcceptance(new DataItemRepository(store), id, undefined)).kind).to.equal('theirs');
  });

  it('knows nothing when the stream has no acceptance, or cannot be read', async () => {
    expect(await findAcceptance(new DataItemRepository(store), id, payment)).to.deep.equal({ kind: 'unknown' });
    const down = {
      ...store,
      readStream: async function* () {
        throw new EventStoreUnavailable('down');
      },
    } as EventStore;
    expect(await findAcceptance(new DataItemRepository(down), id, payment)).to.deep.equal({ kind: 'unknown' });
  });
});

import { expect } from 'chai';
import { toNewEvent, type DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { expectPlainError, startAdminApp, T0, type AdminApp } from './support.js';

/** the item's stream as the service writes it: its acceptance, then what happened to it */
async function given(app: AdminApp, id: string, events: DomainEvent[]) {
  await app.eventStore.append(
    dataItemStream(id as DataItemId),
    events.map((e) => toNewEvent(e, newEventId(), { correlationId: 'spec' })),
    'no_stream',
  );
}

const [failedItem, waitingItem, damagedItem, unknownItem] = [itemId(1), itemId(2), itemId(3), itemId(4)];
const failed = (id: string): DomainEvent => ({ type: 'DataItemFailed', data: { id, attempts: 10, reason: '10 bundles dropped', timestamp: T0 + 1 } });

describe('admin API: requeue of a FAILED item', () => {
  let app: AdminApp;
  beforeEach(async () => {
    app = await startAdminApp();
    await given(app, failedItem, [dataItemAccepted(failedItem, { timestamp: T0 }), failed(failedItem)]);
    await given(app, waitingItem, [dataItemAccepted(waitingItem, { timestamp: T0 })]);
    await given(app, damagedItem, [
      dataItemAccepted(damagedItem, { timestamp: T0 }),
      { type: 'DataItemDamaged', data: { id: damagedItem, blobKey: `items/${damagedItem}`, found: 'missing', timestamp: T0 + 1 } },
    ]);
  });
  afterEach(() => app.close());

  const requeue = (id: string, body: unknown = { by: 'alice', reason: 'gateway healed' }, prefix = '/admin') =>
    app.admin(`${prefix}/items/${id}/requeue`, { method: 'POST', body });
  const stored = async (id: string) => {
    const events: { type: string; data: unknown; causationId: string | undefined }[] = [];
    for await (const e of app.eventStore.readStream(dataItemStream(id as DataItemId)))
      events.push({ type: e.type, data: e.data, causationId: e.metadata.causationId });
    return events;
  };

  it('requeues a FAILED item: 200, DataItemRequeued on its stream with who, why and the failure it leaves, caused by admin', async () => {
    app.clock.now = T0 + 5000;
    const res = await requeue(failedItem);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(await res.json()).to.deep.equal({ id: failedItem, requeued: true, previousFailure: '10 bundles dropped' });
    expect((await stored(failedItem)).at(-1)).to.deep.equal({
      type: 'DataItemRequeued',
      data: {
        id: failedItem,
        by: 'alice',
        reason: 'gateway healed',
        previousFailure: '10 bundles dropped',
        previousAttempts: 10,
        rawContentLength: 1100,
        acceptedAt: T0,
        timestamp: T0 + 5000,
      },
      causationId: 'admin',
    });
  });

  it('answers a second requeue with requeued: false and the first one, recording nothing more (also under /v1/admin)', async () => {
    app.clock.now = T0 + 5000;
    await requeue(failedItem);
    const again = await requeue(failedItem, { by: 'bob', reason: 'again' }, '/v1/admin');
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal({
      id: failedItem,
      requeued: false,
      already: { by: 'alice', reason: 'gateway healed', at: new Date(T0 + 5000).toISOString() },
    });
    expect((await stored(failedItem)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemFailed', 'DataItemRequeued']);
  });

  it('refuses an item that is not FAILED with 409 Data item not failed, and a damaged one with 409 Data item damaged: upload it again', async () => {
    await expectPlainError(await requeue(waitingItem), 409, 'Data item not failed');
    await expectPlainError(await requeue(damagedItem), 409, 'Data item damaged: upload it again');
    expect((await stored(waitingItem)).map((e) => e.type)).to.deep.equal(['DataItemAccepted']);
    expect((await stored(damagedItem)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemDamaged']);
  });

  it("answers an unknown item, or an id of another shape, with 404 TX doesn't exist", async () => {
    await expectPlainError(await requeue(unknownItem), 404, "TX doesn't exist");
    await expectPlainError(await requeue('not-an-id'), 404, "TX doesn't exist");
  });

  it('needs who and why: 400 Invalid request without `by` or `reason`, or with a field it does not know', async () => {
    for (const body of [{ reason: 'x' }, { by: 'alice' }, { by: '', reason: 'x' }, { by: 'alice', reason: 'x', force: true }]) {
      await expectPlainError(await requeue(failedItem, body), 400, 'Invalid request');
    }
    expect((await stored(failedItem)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemFailed']);
  });

  it('needs the bearer token: 401 Unauthorized, and nothing recorded', async () => {
    const res = await fetch(`${app.url}/admin/items/${failedItem}/requeue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'mallory', reason: 'x' }),
    });
    await expectPlainError(res, 401, 'Unauthorized');
    expect((await stored(failedItem)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemFailed']);
  });
});

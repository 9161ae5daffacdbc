import { expect } from 'chai';
import { projectBatch } from '../../projections/projectBatch.js';
import { checkpointOf, collectionOf, txStatusProjection } from '../../projections/index.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { RecordedEvent, StreamName } from '../../src/ports/eventStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const id = itemId(1);
const recorded = (type: string, data: unknown, position: bigint): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  type,
  data,
  metadata: { correlationId: 't', schemaVersion: 1 },
  streamName: `dataitem-${id}` as StreamName,
  revision: position - 1n,
  position,
  created: 1,
});

describe('projectBatch', () => {
  it('parses only the events a projection handles: one no read model takes is passed over, however it is shaped', async () => {
    const store = openSqliteReadStore({ path: ':memory:' });
    try {
      const accepted: DomainEvent = dataItemAccepted(id);
      const target = {
        projection: txStatusProjection,
        collection: collectionOf(txStatusProjection),
        checkpoint: checkpointOf(txStatusProjection),
        after: undefined,
      };
      // the bridge's outcome is in no read model; its data here is not even the event's shape
      const batch = [recorded('DataItemAccepted', accepted.data, 1n), recorded('DataItemBridged', { not: 'an outcome' }, 2n)];
      expect(await projectBatch(store, [target], batch)).to.equal(2n);
      expect((await store.get(target.collection, id))?.doc).to.include({ status: 'CONFIRMED' });
      expect(await store.getCheckpoint(target.checkpoint)).to.equal(2n);
    } finally {
      await store.close();
    }
  });
});

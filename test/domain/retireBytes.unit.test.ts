import { decide, evolve, initialState, type DataItemCommand, type DataItemState } from '../../src/domain/dataItem/decider.js';
import type { DataItemEvent } from '../../src/domain/dataItem/events.js';
import { deciderSpec } from '../support/deciderSpec.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const spec = deciderSpec<DataItemCommand, DataItemEvent, DataItemState>({ initialState, evolve, decide: (c, s) => decide(c, s).events });
const ID = itemId(7);
const permanent = { id: ID, planId: 'plan-1', bundleId: 'tx-1', startOffsetInRootBundle: 1_000, permanentAt: 50 };
const retire: DataItemCommand = { type: 'RetireBytes', data: { ...permanent, now: 90 } };

describe('data item decider: retiring the bytes of a permanent item', () => {
  const accepted = dataItemAccepted(ID, { rawContentLength: 1234 });
  const retired: DataItemEvent = {
    type: 'ItemBytesRetired',
    data: { ...permanent, blobKey: accepted.data.blobKey, sha256: accepted.data.sha256, rawContentLength: 1234, timestamp: 90 },
  };

  it('records the blob given up with the digest and size accepted, and where its bytes are on Arweave', () => {
    spec.given([accepted]).when(retire).then([retired]);
  });

  it('decides nothing the second time (a pass resumed after a crash)', () => {
    spec.given([accepted, retired]).when(retire).thenNothing();
  });

  it('decides nothing for an item never accepted, FAILED, or whose bytes are damaged', () => {
    spec.given([]).when(retire).thenNothing();
    spec
      .given([accepted, { type: 'DataItemFailed', data: { id: ID, attempts: 3, reason: 'x', timestamp: 2 } }])
      .when(retire)
      .thenNothing();
    spec
      .given([accepted, { type: 'DataItemDamaged', data: { id: ID, blobKey: accepted.data.blobKey, found: 'missing', timestamp: 2 } }])
      .when(retire)
      .thenNothing();
  });

  it('keeps the bytes of a bundle item while its nested index, which reads them, is not complete', () => {
    const root = dataItemAccepted(ID, { rawContentLength: 1234, nestedBundle: true });
    const part = (more: boolean): DataItemEvent => ({
      type: 'NestedItemsIndexed',
      data: { id: ID, items: [], timestamp: 3, verified: true, ...(more ? { more: true as const } : {}) },
    });
    spec.given([root]).when(retire).thenNothing();
    spec
      .given([root, part(true)])
      .when(retire)
      .thenNothing();
    spec
      .given([root, part(true), part(false)])
      .when(retire)
      .then([{ ...retired, data: { ...retired.data, blobKey: root.data.blobKey, sha256: root.data.sha256 } }]);
  });
});

import { decide, evolve, initialState, type DataItemCommand, type DataItemState } from '../../src/domain/dataItem/decider.js';
import type { DataItemEvent, NestedItem } from '../../src/domain/dataItem/events.js';
import type { NestedFinding } from '../../src/domain/dataItem/nestedIndex.js';
import { deciderSpec } from '../support/deciderSpec.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const spec = deciderSpec<DataItemCommand, DataItemEvent, DataItemState>({ initialState, evolve, decide: (c, s) => decide(c, s).events });
const ROOT = itemId(1);

describe('data item decider (given / when / then)', () => {
  describe('acceptance, the command that creates the stream', () => {
    const accepted = dataItemAccepted(ROOT, { winc: '42', payer: 'payer-1', reservationId: 'r-1' });

    it('accepts an item never seen: the acceptance carries the command facts unchanged', () => {
      spec.given([]).when({ type: 'AcceptDataItem', data: accepted.data }).then([accepted]);
    });

    it('decides nothing for an item accepted already, whatever the new receipt', () => {
      spec
        .given([accepted])
        .when({ type: 'AcceptDataItem', data: dataItemAccepted(ROOT, { timestamp: 5 }).data })
        .thenNothing();
    });
  });

  describe('the index of the items nested in a bundle item', () => {
    const bundleAccepted = dataItemAccepted(ROOT, { nestedBundle: true });
    const place = (n: number): NestedItem => ({
      id: itemId(100 + n),
      parentId: ROOT,
      startOffsetInParentDataItemPayload: 32 + 64 * 4 + 10 * n,
      offsetInRootItem: 1044 + 32 + 64 * 4 + 10 * n,
      rawContentLength: 10,
      payloadDataStart: 8,
      payloadContentType: 'text/plain',
      depth: 1,
    });
    const item = (n: number): NestedFinding => ({ item: place(n) });
    const left: NestedFinding = { unindexed: { id: itemId(200), reason: 'signature does not verify' } };
    const part = (first: number, found: NestedFinding[], more: boolean, now = 9): DataItemCommand => ({
      type: 'RecordNestedPart',
      data: { id: ROOT, first, found, more, now },
    });
    const indexed = (found: NestedFinding[], more: boolean, timestamp = 9): DataItemEvent => ({
      type: 'NestedItemsIndexed',
      data: {
        id: ROOT,
        items: found.flatMap((f) => ('item' in f ? [f.item] : [])),
        ...(found.some((f) => 'unindexed' in f) ? { unindexed: found.flatMap((f) => ('unindexed' in f ? [f.unindexed] : [])) } : {}),
        timestamp,
        verified: true,
        ...(more ? { more: true as const } : {}),
      },
    });

    it('records a part with its items and the entries left out, marked when more follow', () => {
      spec
        .given([bundleAccepted])
        .when(part(0, [item(0), left], true))
        .then([indexed([item(0), left], true)]);
      spec
        .given([bundleAccepted])
        .when(part(0, [item(0)], false))
        .then([indexed([item(0)], false)]);
    });

    it('records after the findings of parts on the stream, leaving out those a racing run recorded', () => {
      const first = indexed([item(0), item(1)], true);
      spec
        .given([bundleAccepted, first])
        .when(part(2, [item(2), item(3)], true))
        .then([indexed([item(2), item(3)], true)]);
      spec
        .given([bundleAccepted, first])
        .when(part(1, [item(1), item(2)], false))
        .then([indexed([item(2)], false)]);
    });

    it('decides nothing for a part a racing run recorded whole, unless it is the last (it completes the index)', () => {
      const first = indexed([item(0), item(1)], true);
      spec
        .given([bundleAccepted, first])
        .when(part(0, [item(0), item(1)], true))
        .thenNothing();
      spec
        .given([bundleAccepted, first])
        .when(part(2, [], false))
        .then([indexed([], false)]);
    });

    it('decides nothing once the index is complete, the item failed (even requeued since), or is no bundle', () => {
      const failed: DataItemEvent = { type: 'DataItemFailed', data: { id: ROOT, attempts: 3, reason: '3 bundles dropped', timestamp: 5 } };
      const requeued: DataItemEvent = {
        type: 'DataItemRequeued',
        data: {
          id: ROOT,
          by: 'ops',
          reason: 'funded',
          previousFailure: '3 bundles dropped',
          previousAttempts: 3,
          rawContentLength: 1100,
          acceptedAt: 1,
          timestamp: 6,
        },
      };
      spec
        .given([bundleAccepted, indexed([item(0)], false)])
        .when(part(1, [item(1)], false))
        .thenNothing();
      spec
        .given([bundleAccepted, failed])
        .when(part(0, [item(0)], false))
        .thenNothing();
      spec
        .given([bundleAccepted, failed, requeued])
        .when(part(0, [item(0)], false))
        .thenNothing();
      spec
        .given([dataItemAccepted(ROOT)])
        .when(part(0, [item(0)], false))
        .thenNothing();
      spec
        .given([])
        .when(part(0, [item(0)], false))
        .thenNothing();
    });

    it('counts the parts of an earlier version, recorded whole without the acceptance flag, as a complete index', () => {
      const whole: DataItemEvent = { type: 'NestedItemsIndexed', data: { id: ROOT, items: [place(0)], timestamp: 2 } };
      spec
        .given([dataItemAccepted(ROOT), whole])
        .when(part(1, [item(1)], false))
        .thenNothing();
    });

    it('refuses a part that would leave a gap after the findings on the stream', () => {
      spec
        .given([bundleAccepted, indexed([item(0)], true)])
        .when(part(2, [item(2)], false))
        .thenThrows(Error, `holds 1 findings, 2 expected`);
    });
  });
});

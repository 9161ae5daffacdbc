/**
 * A bundle item of 10,000 nested items on the scale-out profile: its index (about 13 MB of events
 * with 1,000-byte content types) reaches the EventStoreDB node in parts that each fit its 1 MiB
 * MaxAppendSize, and every item gets its offsets in the MongoDB read model.
 */
import { expect } from 'chai';
import { appendSize } from '../../src/ports/eventStore.js';
import { PART_MAX_BYTES } from '../../src/app/nested/recordNested.js';
import { collectionOf, nestedOffsetsProjection, pendingNestedIndexProjection } from '../../projections/index.js';
import type { NestedOffsetsDocument } from '../../projections/nestedOffsets.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { asBody, signers } from '../support/items.js';
import { bundleItem } from '../nested/support/nestedBundles.js';
import { ed25519Key, genuineEntry, rawBundle } from '../nested/support/fakeEntries.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { startScaleoutService, type ScaleoutService } from './support.js';

const ENTRIES = 10_000;
const contentType = (n: number) => `application/x-${String(n).padStart(5, '0')}-${'t'.repeat(980)}`;

describe('a nested bundle of 10,000 items on the scale-out profile', function () {
  this.timeout(600_000);
  let service: ScaleoutService;
  before(async () => {
    service = await startScaleoutService({ FREE_UPLOAD_LIMIT_BYTES: String(64 << 20), NESTED_FREE_MAX_ITEMS: String(ENTRIES) });
  });
  after(() => service?.close());

  it('indexes every item with its offsets, each append within the node MaxAppendSize', async () => {
    const key = ed25519Key();
    const entries = Array.from({ length: ENTRIES }, (_, n) =>
      genuineEntry(key, Buffer.from(`nested item ${n}`), [{ name: 'Content-Type', value: contentType(n) }]),
    );
    const root = await bundleItem(signers.ethereum(), rawBundle(entries));
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(root.getRaw()) });
    await res.arrayBuffer();
    expect(res.status).to.equal(200);
    await nestedIndexed(service, root.id, 480_000);

    const parts = [];
    for await (const e of service.eventStore.readStream(dataItemStream(root.id as DataItemId))) if (e.type === 'NestedItemsIndexed') parts.push(e);
    expect(parts.length).to.equal(46);
    expect(parts.every((e) => appendSize([e]) <= PART_MAX_BYTES)).to.equal(true);
    // the node (which refuses more than its MaxAppendSize) took parts of hundreds of KiB, measured in its own terms
    expect(service.esdb.figures.largestAppendBytes).to.be.above(PART_MAX_BYTES / 2);

    const ids = entries.map((e) => e.id);
    const docs = await service.readStore.getMany<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), ids);
    expect(ids.filter((id) => docs.get(id)?.doc.rootId !== root.id)).to.deep.equal([]);
    expect(await service.readStore.get(collectionOf(pendingNestedIndexProjection), root.id)).to.equal(undefined);
  });
});

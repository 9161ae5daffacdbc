import { expect } from 'chai';
import { DataItem } from 'arbundles';
import type { Arlocal } from './arlocal.js';

/**
 * Each item's `/tx/:id/offsets`, asked of the service at `serviceUrl`, points at its own bytes in
 * bundle `bundleId` as arlocal serves it: the raw item there parses, has the item's id, verifies,
 * and its data starts at `payloadDataStart` with the item's data.
 */
export async function expectOffsetsInBundle(serviceUrl: string, arlocal: Arlocal, items: readonly DataItem[], bundleId: string): Promise<void> {
  const bundle = Buffer.from(await arlocal.data(bundleId));
  for (const item of items) {
    const res = await fetch(`${serviceUrl}/tx/${item.id}/offsets`);
    expect(res.status, `offsets of ${item.id}`).to.equal(200);
    const offsets = await res.json();
    expect(offsets.rootBundleId).to.equal(bundleId);
    const raw = bundle.subarray(offsets.startOffsetInRootBundle, offsets.startOffsetInRootBundle + offsets.rawContentLength);
    const parsed = new DataItem(raw);
    expect(parsed.id).to.equal(item.id);
    expect(await parsed.isValid()).to.equal(true);
    expect(offsets.payloadDataStart).to.equal(parsed.getStartOfData());
    expect(Buffer.compare(raw.subarray(offsets.payloadDataStart), item.rawData)).to.equal(0);
  }
}

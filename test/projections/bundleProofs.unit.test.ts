import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { bundleProofsProjection } from '../../projections/index.js';
import { applyEvents, type PositionedDocument } from '../../projections/apply.js';
import type { BundleProofDocument } from '../../projections/bundleProofs.js';

const planId = 'pLaNiD0123456789abcdef';
const txId = 'T'.repeat(43);
const base = { planId, timestamp: 1_700_000_000_000 };
const prepared: DomainEvent = {
  type: 'BundlePrepared',
  data: { ...base, itemIds: [], txId, reward: '1', anchor: 'a', dataRoot: 'R'.repeat(43), dataSize: 640_130, anchorHeight: 3, tx: {} },
};
const confirmed = (blockHash?: string, blockHeight = 7): DomainEvent => ({
  type: 'BundleConfirmed',
  data: { ...base, txId, blockHeight, confirmations: 1, ...(blockHash !== undefined ? { blockHash } : {}) },
});
const permanent = (blockHash: string, blockHeight: number): DomainEvent => ({
  type: 'BundlePermanent',
  data: { ...base, itemIds: [], txId, blockHeight, blockHash, confirmations: 18 },
});

function project(events: DomainEvent[]): BundleProofDocument | undefined {
  const docs = new Map<string, PositionedDocument<BundleProofDocument>>();
  applyEvents(
    bundleProofsProjection,
    events.map((event, i) => ({ event, recorded: { position: BigInt(i + 1) } as RecordedEvent })),
    docs,
  );
  return docs.get(planId)?.doc;
}

describe('bundle proofs projection', () => {
  it('keeps the signed data root and size from preparation, with no block', () => {
    expect(project([prepared])).to.deep.equal({ txId, dataRoot: 'R'.repeat(43), dataSize: 640_130 });
  });

  it('names the block the gateway named, the last one when it changes (a fork) before permanence', () => {
    expect(project([prepared, confirmed('h1')])?.block).to.deep.equal({ height: 7, indepHash: 'h1' });
    expect(project([prepared, confirmed('h1'), permanent('h2', 8)])?.block).to.deep.equal({ height: 8, indepHash: 'h2' });
  });

  it('names no block from an event recorded before block hashes were kept', () => {
    expect(project([prepared, confirmed(undefined)])).to.deep.equal({ txId, dataRoot: 'R'.repeat(43), dataSize: 640_130 });
  });

  it('forgets a dropped plan, and makes nothing of a block for a plan never prepared', () => {
    expect(project([prepared, { type: 'BundleDropped', data: { ...base, itemIds: [], reason: 'r', countsAsAttempt: true } }])).to.equal(undefined);
    expect(project([confirmed('h1')])).to.equal(undefined);
  });
});

import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { allProjections, txStatusProjection, receiptsProjection, type ProjectionDefinition } from '../../projections/index.js';
import { applyEvents, type PositionedDocument } from '../../projections/apply.js';
import { dataItemAccepted, itemId } from '../support/events.js';

/** Applies events at positions 1, 2, 3... exactly as the runner does. */
function project<D>(p: ProjectionDefinition<D>, events: DomainEvent[], start = new Map<string, PositionedDocument<D>>()) {
  const docs = new Map(start);
  applyEvents(p, events.map((event, i) => ({ event, recorded: { position: BigInt(i + 1) } as RecordedEvent })), docs);
  return docs;
}

describe('tx status projection', () => {
  it('shows an accepted item as CONFIRMED/new with its sizes, content type and price', () => {
    const id = itemId(1);
    const docs = project(txStatusProjection, [dataItemAccepted(id, { winc: '42' })]);
    expect(docs.get(id)?.doc).to.deep.equal({
      status: 'CONFIRMED',
      info: 'new',
      winc: '42',
      rawContentLength: 1100,
      payloadContentType: 'text/plain',
      payloadDataStart: 1044,
      payloadContentLength: 56,
      timestamp: 1_700_000_000_000,
    });
  });
});

describe('receipts projection', () => {
  it('keeps the receipt of each accepted item', () => {
    const event = dataItemAccepted(itemId(2));
    const docs = project(receiptsProjection, [event]);
    expect(docs.get(itemId(2))?.doc).to.deep.equal(event.data.receipt);
  });
});

describe('every projection', () => {
  for (const p of allProjections) {
    it(`${p.name}: applying the same events twice changes nothing`, () => {
      const events = [dataItemAccepted(itemId(1)), dataItemAccepted(itemId(2), { winc: '7' }), dataItemAccepted(itemId(3))];
      const once = project(p, events);
      const twice = project(p, events, once);
      expect([...twice.entries()]).to.deep.equal([...once.entries()]);
    });
  }
});

import { expect } from 'chai';
import { checkRefunds } from '../../src/audit/checks/refunds.js';
import type { AuditEvent, Finding } from '../../src/audit/types.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { streamName, type RecordedEvent, type StreamName } from '../../src/ports/eventStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const PAYER = 'P'.repeat(43);
const [a, b] = [itemId(1), itemId(2)];
const paid = (id: string) => dataItemAccepted(id, { winc: '3000', payer: PAYER, reservationId: `r-${id}` });

const recorded = (event: DomainEvent, stream: StreamName, position: bigint): RecordedEvent => ({
  id: `e${position}`,
  type: event.type,
  data: event.data,
  metadata: { correlationId: 'spec', schemaVersion: 1 },
  streamName: stream,
  revision: 0n,
  position,
  created: 0,
});

/** the check over events given in order; each item's stream is its acceptance (what the check reads of it) */
async function findingsOf(events: DomainEvent[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  const accepted = new Map(events.filter((e) => e.type === 'DataItemAccepted').map((e) => [dataItemStream(e.data.id as DataItemId), e]));
  async function* all(): AsyncGenerator<AuditEvent> {
    let position = 0n;
    for (const event of events) yield { event, recorded: recorded(event, streamName('spec'), ++position) };
  }
  const eventStore = {
    async *readStream(stream: StreamName) {
      const event = accepted.get(stream);
      if (event) yield recorded(event, stream, 0n);
    },
  };
  await checkRefunds(all(), { eventStore }, { finding: (f) => findings.push(f), count: () => {} });
  return findings;
}

const failed = (id: string): DomainEvent => ({ type: 'DataItemFailed', data: { id, attempts: 10, reason: '10 bundles dropped', timestamp: 1 } });
const refund = (id: string, overrides: Partial<{ winc: string; address: string; failure: number }> = {}): DomainEvent => ({
  type: 'ChargeRefunded',
  data: { address: PAYER, dataItemId: id, reservationId: `r-${id}`, winc: '3000', failure: 1, reason: 'failed', timestamp: 2, ...overrides },
});
const permanent = (itemIds: string[]): DomainEvent => ({
  type: 'BundlePermanent',
  data: { planId: 'plan', itemIds, txId: 'tx', blockHeight: 1, confirmations: 18, timestamp: 3 },
});
const requeued = (id: string): DomainEvent => ({
  type: 'DataItemRequeued',
  data: { id, by: 'ops', reason: 'r', previousFailure: 'f', previousAttempts: 10, rawContentLength: 1100, acceptedAt: 0, timestamp: 2 },
});
const kinds = (findings: Finding[]) => findings.map(({ kind, id }) => ({ kind, id }));

describe('audit: refunds', () => {
  it('finds nothing wrong with a FAILED item refunded its charge once', async () => {
    expect(await findingsOf([paid(a), failed(a), refund(a)])).to.deep.equal([]);
  });

  it('reports a refund for an item that became permanent (appended by hand)', async () => {
    expect(await findingsOf([paid(a), permanent([a]), refund(a)])).to.deep.equal([
      { kind: 'refund-mismatch', id: a, detail: `refunded 3000 winc to ${PAYER} while the item was not FAILED (permanent, pending or never failed)` },
    ]);
  });

  it('reports an item made permanent while its refund stood uncharged (requeued without its charge)', async () => {
    expect(kinds(await findingsOf([paid(a), failed(a), refund(a), requeued(a), permanent([a])]))).to.deep.equal([{ kind: 'refund-permanent', id: a }]);
  });

  it('reports a double refund', async () => {
    expect(kinds(await findingsOf([paid(a), failed(a), refund(a), refund(a)]))).to.deep.equal([{ kind: 'refund-twice', id: a }]);
  });

  it('reports a refund of another amount, to another account, or of a free item', async () => {
    const free = dataItemAccepted(b);
    const findings = await findingsOf([paid(a), failed(a), refund(a, { winc: '3001', address: 'Q'.repeat(43) }), free, failed(b), refund(b)]);
    expect(findings.map((f) => `${f.kind} ${f.id === a ? 'a' : 'b'}: ${f.detail}`)).to.deep.equal([
      `refund-mismatch a: refunded to ${'Q'.repeat(43)}, charged to ${PAYER}`,
      'refund-mismatch a: refunded 3001 winc, charged 3000',
      `refund-mismatch b: refunded 3000 winc to ${PAYER}, but the item was never charged`,
    ]);
  });
});

import { expect } from 'chai';
import { checkHeldItems } from '../../src/audit/checks/heldItems.js';
import type { AuditEvent, Finding } from '../../src/audit/types.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { streamName } from '../../src/ports/eventStore.js';
import { itemId } from '../support/events.js';

async function* stream(events: DomainEvent[]): AsyncGenerator<AuditEvent> {
  let position = 0n;
  for (const event of events) {
    position += 1n;
    const recorded = { id: `e${position}`, type: event.type, data: event.data, metadata: { correlationId: 'spec', schemaVersion: 1 } };
    yield { event, recorded: { ...recorded, streamName: streamName('spec'), revision: position - 1n, position, created: 0 } };
  }
}

const [a, b] = [itemId(1), itemId(2)];
const held = (id: string): DomainEvent => ({ type: 'DataItemQuarantined', data: { id, by: 'ops', reason: 'spam', timestamp: 0 } });
const released = (id: string, refused?: { planId: string; txId: string }): DomainEvent => ({
  type: 'DataItemReleased',
  data: { id, by: 'ops', reason: 'r', ...(refused ? { refused } : {}), timestamp: 0 },
});
const prepared = (planId: string, itemIds: string[]): DomainEvent => ({
  type: 'BundlePrepared',
  data: { planId, itemIds, txId: `tx-${planId}`, reward: '1', anchor: 'x', dataRoot: 'r', dataSize: 1, anchorHeight: 1, tx: {}, timestamp: 0 },
});

describe('audit: held items', () => {
  it('reports a bundle signed with a held item; not one signed after the release, nor one the hold was refused for', async () => {
    const findings: Finding[] = [];
    await checkHeldItems(stream([held(a), held(b), prepared('p1', [a, b]), released(b, { planId: 'p1', txId: 'tx-p1' }), released(a), prepared('p2', [a])]), {
      finding: (f: Finding) => findings.push(f),
      count: () => {},
    } as never);
    expect(findings).to.deep.equal([
      { kind: 'held-item-signed', id: a, detail: 'signed into bundle p1 while quarantined, and the hold never recorded as too late' },
    ]);
  });
});

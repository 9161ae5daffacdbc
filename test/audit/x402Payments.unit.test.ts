import { expect } from 'chai';
import { checkX402Payments } from '../../src/audit/checks/x402Payments.js';
import type { AuditEvent, AuditSink, Counted, Finding } from '../../src/audit/types.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { X402SettlementStarted } from '../../src/domain/x402/events.js';
import { streamName } from '../../src/ports/eventStore.js';

const payer = '0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0';
const paymentId = `x402:base:${payer.toLowerCase()}:0x${'a'.repeat(64)}`;
const start: X402SettlementStarted['data'] = {
  paymentId,
  network: 'base',
  payer,
  nonce: `0x${'a'.repeat(64)}`,
  asset: `0x${'1'.repeat(40)}`,
  payTo: `0x${'2'.repeat(40)}`,
  usdc: '4',
  winc: '12000',
  validBefore: 1_700_000_300,
  dataItemId: 'i'.repeat(43),
  timestamp: 1_700_000_000_000,
};
const started: DomainEvent = { type: 'X402SettlementStarted', data: start };
const failed: DomainEvent = { type: 'X402SettlementFailed', data: { paymentId, payer, reason: 'insufficient_funds', timestamp: 2 } };
const credited = (winc = '12000', address = payer): DomainEvent => ({ type: 'AccountCredited', data: { address, winc, creditId: paymentId, timestamp: 3 } });

/** the check over `events` with no chain configured and a grace longer than the story: what it finds */
async function findingsOf(events: DomainEvent[]): Promise<{ findings: Finding[]; counts: Partial<Record<Counted, number>> }> {
  const findings: Finding[] = [];
  const counts: Partial<Record<Counted, number>> = {};
  const sink: AuditSink = { finding: (f) => findings.push(f), count: (what, n = 1) => void (counts[what] = (counts[what] ?? 0) + n) };
  async function* stream(): AsyncGenerator<AuditEvent> {
    for (const [i, event] of events.entries()) {
      const position = BigInt(i + 1);
      yield {
        event,
        recorded: {
          id: `e${i}`,
          type: event.type,
          data: event.data,
          metadata: { correlationId: 'spec', schemaVersion: 1 },
          streamName: streamName(event.type === 'AccountCredited' ? `account-${payer}` : `x402Payment-${paymentId}`),
          revision: position - 1n,
          position,
          created: 0,
        },
      };
    }
  }
  await checkX402Payments(stream(), { chains: new Map(), graceMs: 60_000, now: start.timestamp + 1000 }, sink);
  return { findings, counts };
}

describe('audit: x402 payments', () => {
  it('finds nothing in a settlement credited once, or failed and never credited, and counts them not checked against a chain', async () => {
    expect(await findingsOf([started, credited()])).to.deep.equal({ findings: [], counts: { x402NotChecked: 1 } });
    expect(await findingsOf([started, failed])).to.deep.equal({ findings: [], counts: { x402NotChecked: 1 } });
  });

  it('counts a settlement started within the grace as in flight, not judged', async () => {
    expect(await findingsOf([started])).to.deep.equal({ findings: [], counts: { x402InFlight: 1 } });
  });

  it('finds a payment credited twice', async () => {
    const { findings } = await findingsOf([started, credited(), credited()]);
    expect(findings).to.deep.equal([
      { kind: 'x402-twice', id: payer, detail: `${paymentId} credited at account-${payer}@2, and before at account-${payer}@1` },
    ]);
  });

  it('finds a payment credit with no settlement started, one after its settlement failed, and one of another amount or payer', async () => {
    expect((await findingsOf([credited()])).findings).to.deep.equal([
      { kind: 'x402-mismatch', id: payer, detail: `${paymentId} credited at account-${payer}@0 with no settlement started` },
    ]);
    expect((await findingsOf([started, failed, credited()])).findings).to.deep.equal([
      { kind: 'x402-mismatch', id: payer, detail: `${paymentId} credited at account-${payer}@2 after its settlement failed` },
    ]);
    expect((await findingsOf([started, credited('12001')])).findings).to.deep.equal([
      { kind: 'x402-mismatch', id: payer, detail: `${paymentId} credited 12001 winc to ${payer}; started for 12000 winc from ${payer}` },
    ]);
  });

  it('finds a settlement recorded failed after it was credited, or started again once credited', async () => {
    expect((await findingsOf([started, credited(), failed])).findings).to.deep.equal([
      { kind: 'x402-mismatch', id: payer, detail: `${paymentId} recorded failed after it was credited` },
    ]);
    expect((await findingsOf([started, credited(), started])).findings).to.deep.equal([
      { kind: 'x402-twice', id: payer, detail: `${paymentId} started again after it was credited` },
    ]);
  });
});

import type { X402SettlementStarted } from '../../domain/x402/events.js';
import type { AuditEvent, AuditSink } from '../types.js';

/** what the audit reads of one x402 network's USDC contract (src/adapters/x402/settlement.ts) */
export interface X402ChainReader {
  /** EIP-3009 `authorizationState(from, nonce)` */
  authorizationUsed(from: `0x${string}`, nonce: `0x${string}`): Promise<boolean>;
  /** the latest block's timestamp, in seconds */
  chainTime(): Promise<number>;
}

export interface X402AuditDeps {
  /** the networks the configuration reads, by x402 name; payments on another are checked against their events only */
  chains: ReadonlyMap<string, X402ChainReader>;
  /** a settlement started less than this long ago may still be in its upload's hands: counted, not judged */
  graceMs: number;
  now: number;
}

interface Payment {
  started?: X402SettlementStarted['data'];
  /** where it was credited (the account and credit's event), once it was */
  credited?: string;
  failed: boolean;
}

/**
 * Every x402 payment that settled is credited to its payer exactly once, and none that did not is:
 * each payment credit (credit id `x402:...`) follows its `X402SettlementStarted` and credits that
 * payer that winc, once; a settlement recorded failed is never credited, nor started again once
 * credited. Against the chain (the networks configured): a credited payment's authorization is used, a
 * failed one's is not, and a settlement started longer ago than the grace and never ended is a finding:
 * used on chain (settled, never credited: what the x402 recovery pass credits), or unused and expired.
 * The item the payment was for is charged from that credit as any upload is (the balances check).
 */
export async function checkX402Payments(events: AsyncIterable<AuditEvent>, deps: X402AuditDeps, sink: AuditSink): Promise<void> {
  const payments = new Map<string, Payment>();
  const paymentOf = (id: string) => payments.get(id) ?? payments.set(id, { failed: false }).get(id)!;
  for await (const { event, recorded } of events) {
    if (event.type === 'X402SettlementStarted') {
      const p = paymentOf(event.data.paymentId);
      if (p.credited !== undefined)
        sink.finding({ kind: 'x402-twice', id: event.data.payer, detail: `${event.data.paymentId} started again after it was credited` });
      Object.assign(p, { started: event.data, failed: false });
    } else if (event.type === 'X402SettlementFailed') {
      const p = paymentOf(event.data.paymentId);
      if (p.credited !== undefined)
        sink.finding({ kind: 'x402-mismatch', id: event.data.payer, detail: `${event.data.paymentId} recorded failed after it was credited` });
      p.failed = true;
    } else if (event.type === 'AccountCredited' && event.data.creditId.startsWith('x402:')) {
      const { creditId, address, winc } = event.data;
      const p = paymentOf(creditId);
      const where = `${recorded.streamName}@${recorded.revision}`;
      if (p.credited !== undefined) sink.finding({ kind: 'x402-twice', id: address, detail: `${creditId} credited at ${where}, and before at ${p.credited}` });
      if (!p.started) sink.finding({ kind: 'x402-mismatch', id: address, detail: `${creditId} credited at ${where} with no settlement started` });
      else if (p.failed) sink.finding({ kind: 'x402-mismatch', id: address, detail: `${creditId} credited at ${where} after its settlement failed` });
      else if (p.started.payer !== address || p.started.winc !== winc) {
        sink.finding({
          kind: 'x402-mismatch',
          id: address,
          detail: `${creditId} credited ${winc} winc to ${address}; started for ${p.started.winc} winc from ${p.started.payer}`,
        });
      }
      p.credited ??= where;
    }
  }
  for (const [paymentId, p] of payments) if (p.started) await judgeOnChain(paymentId, p, p.started, deps, sink);
}

const unreadable = Symbol('unreadable');

async function judgeOnChain(paymentId: string, p: Payment, started: X402SettlementStarted['data'], deps: X402AuditDeps, sink: AuditSink): Promise<void> {
  const ended = p.credited !== undefined || p.failed;
  if (!ended && deps.now - started.timestamp < deps.graceMs) {
    sink.count('x402InFlight');
    return;
  }
  const chain = deps.chains.get(started.network);
  const read = async <T>(step: (c: X402ChainReader) => Promise<T>): Promise<T | typeof unreadable> => {
    try {
      return chain ? await step(chain) : unreadable;
    } catch {
      return unreadable;
    }
  };
  const used = await read((c) => c.authorizationUsed(started.payer as `0x${string}`, started.nonce as `0x${string}`));
  if (used === unreadable) {
    sink.count('x402NotChecked');
    if (!ended) sink.finding({ kind: 'x402-unresolved', id: started.payer, detail: `${paymentId} started and never ended (the chain not read)` });
    return;
  }
  sink.count('x402Payments');
  if (p.credited !== undefined && !used)
    sink.finding({ kind: 'x402-mismatch', id: started.payer, detail: `${paymentId} credited, but its authorization is unused on chain` });
  if (p.credited === undefined && p.failed && used)
    sink.finding({ kind: 'x402-mismatch', id: started.payer, detail: `${paymentId} recorded failed, but the chain settled it` });
  if (ended) return;
  if (used) {
    sink.finding({ kind: 'x402-unresolved', id: started.payer, detail: `${paymentId} settled on chain for item ${started.dataItemId} and never credited` });
    return;
  }
  const time = await read((c) => c.chainTime());
  if (time !== unreadable && time > started.validBefore) {
    sink.finding({ kind: 'x402-unresolved', id: started.payer, detail: `${paymentId} expired unused and never recorded failed` });
  } else sink.count('x402InFlight');
}

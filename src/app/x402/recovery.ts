import type { Hex } from 'viem';
import type { ReadStore } from '../../ports/readStore.js';
import { collectionOf, pendingX402PaymentsProjection, type PendingX402Payment } from '../../../projections/index.js';
import type { AccountRepository } from '../accounts/accounts.js';
import { leasedPass } from '../periodic.js';
import type { X402PaymentRepository } from './payments.js';
import type { X402Network } from './x402Upload.js';

export interface X402RecoveryOptions {
  networks: readonly X402Network[];
  payments: Pick<X402PaymentRepository, 'execute'>;
  accounts: Pick<AccountRepository, 'execute'>;
  readStore: Pick<ReadStore, 'scan'>;
  /** a settlement started less than this long ago may still be in its upload's hands: not looked at yet */
  graceMs: number;
  intervalMs: number;
  /** one active recovery across processes (absent: always active) */
  holdLease?: () => Promise<boolean>;
  now: () => number;
  log?: (message: string, error?: unknown) => void;
}

const PAGE = 200;
const meta = { correlationId: 'x402-recovery' };

/**
 * Ends the x402 settlements a crash or a lost answer left started (the `pending-x402-payments` read
 * model names them; the chain decides): an authorization the USDC contract shows used was settled, and
 * its payer is credited what it paid (`AccountCredited`, credit id the payment id: once, whoever credits
 * first, the upload or this pass); one still unused once the chain's time is past its `validBefore` can
 * never settle, and its settlement is recorded failed. One unused and still valid is left for a later
 * pass (a transaction sent may yet be mined); a chain that cannot be read holds up its own payments only.
 */
export function createX402Recovery(options: X402RecoveryOptions) {
  const { networks, payments, accounts, readStore, now, log = () => {} } = options;

  async function resolve(paymentId: string, doc: PendingX402Payment): Promise<'credited' | 'failed' | 'pending'> {
    const network = networks.find((n) => n.network === doc.network);
    if (!network) return 'pending';
    const { settlement } = network;
    if (await settlement.authorizationUsed(doc.payer as Hex, doc.nonce as Hex)) {
      const reason = `x402 payment on ${doc.network} for item ${doc.dataItemId}, settled without a recorded answer (found on chain by the x402 recovery pass)`;
      await accounts.execute({ type: 'Credit', data: { address: doc.payer, winc: BigInt(doc.winc), creditId: paymentId, reason, now: now() } }, meta);
      return 'credited';
    }
    if ((await settlement.chainTime()) <= doc.validBefore) return 'pending';
    // read after the chain's time passed validBefore: no transaction can use it any more
    if (await settlement.authorizationUsed(doc.payer as Hex, doc.nonce as Hex)) return 'pending';
    const reason = 'the authorization expired unused (no settlement was mined)';
    await payments.execute({ type: 'FailSettlement', data: { paymentId, reason, now: now() } }, meta);
    return 'failed';
  }

  async function runOnce(): Promise<{ credited: number; failed: number; pending: number }> {
    const result = { credited: 0, failed: 0, pending: 0 };
    const cutoff = now() - options.graceMs;
    let afterId: string | undefined;
    for (;;) {
      const page = await readStore.scan<PendingX402Payment>(collectionOf(pendingX402PaymentsProjection), {
        ...(afterId !== undefined ? { afterId } : {}),
        limit: PAGE,
      });
      for (const { id, doc } of page) {
        if (doc.timestamp > cutoff) continue;
        try {
          result[await resolve(id, doc)] += 1;
        } catch (error) {
          log('x402 settlement not resolved: the chain or the store could not be read', { paymentId: id, error: String(error) });
          result.pending += 1;
        }
      }
      if (page.length < PAGE) return result;
      afterId = page[page.length - 1]!.id;
    }
  }

  return { runOnce, ...leasedPass('x402 recovery', options.intervalMs, options.holdLease, runOnce, log) };
}

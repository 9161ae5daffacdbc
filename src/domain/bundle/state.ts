import { match } from 'ts-pattern';
import type { BundleEvent } from './events.js';

export type BundleStatus = 'planned' | 'prepared' | 'posted' | 'seeded' | 'confirmed' | 'permanent' | 'dropped';

export interface BundleItem {
  id: string;
  size: number;
  offset: number;
}

interface BundleBase {
  planId: string;
  items: BundleItem[];
  headerSize: number;
  totalSize: number;
  plannedAt: number;
  /** planned, and recorded waiting for the service wallet to be funded (since this time) */
  awaitingFundsSince?: number;
  /** the newest fencing token recorded on the stream: commands under an older one are refused */
  fence?: number;
}

/** the signed transaction, from `prepared` on */
export interface BundleTransaction {
  txId: string;
  anchor: string;
  anchorHeight: number;
  dataRoot: string;
  tx: Record<string, unknown>;
}

/**
 * A bundle in each state has what that state implies, so code that holds a `prepared` bundle has its
 * transaction without assertions: planned, no transaction yet; prepared to seeded, a transaction;
 * confirmed and permanent, also the height of the block holding it; dropped, a transaction only if
 * it was prepared before the drop.
 */
export type Bundle =
  | (BundleBase & { status: 'planned' })
  | (BundleBase & BundleTransaction & { status: 'prepared' | 'posted' | 'seeded' })
  | (BundleBase & BundleTransaction & { status: 'confirmed' | 'permanent'; blockHeight: number })
  | (BundleBase & Partial<BundleTransaction> & { status: 'dropped'; blockHeight?: number });

/** a bundle with its transaction: prepared, posted, seeded, confirmed or permanent */
export type SignedBundle = Extract<Bundle, { txId: string }>;
export const hasTransaction = (bundle: Bundle): bundle is SignedBundle => bundle.status !== 'planned' && bundle.status !== 'dropped';

export type BundleState = Bundle | undefined;

/** the steps a live bundle goes through, in order; permanent and dropped end it */
export const LIVE: readonly BundleStatus[] = ['planned', 'prepared', 'posted', 'seeded', 'confirmed'];
export const isLive = (s: BundleState): s is Bundle => s !== undefined && LIVE.includes(s.status);

export const evolveBundle = (state: BundleState, event: BundleEvent): BundleState => {
  const next = evolveStep(state, event);
  const { fence } = event.data;
  return next && fence !== undefined && !(next.fence !== undefined && next.fence >= fence) ? { ...next, fence } : next;
};

const evolveStep = (state: BundleState, event: BundleEvent): BundleState => {
  if (event.type === 'BundlePlanned') {
    const { planId, items, headerSize, totalSize, timestamp } = event.data;
    return { planId, status: 'planned', items, headerSize, totalSize, plannedAt: timestamp };
  }
  if (!state) return state;
  // the steps after preparing need its transaction: a stream the decider wrote always has one there
  const signed = (next: (bundle: SignedBundle) => Bundle): Bundle => (hasTransaction(state) ? next(state) : state);
  return match(event)
    .returnType<Bundle>()
    .with({ type: 'BundleAwaitingFunds' }, ({ data }) => ({ ...state, awaitingFundsSince: data.timestamp }))
    .with({ type: 'BundlePrepared' }, ({ data }) => ({
      ...state,
      status: 'prepared',
      txId: data.txId,
      anchor: data.anchor,
      anchorHeight: data.anchorHeight,
      dataRoot: data.dataRoot,
      tx: data.tx,
    }))
    .with({ type: 'BundlePosted' }, () => signed((b) => ({ ...b, status: 'posted' })))
    .with({ type: 'BundleSeeded' }, () => signed((b) => ({ ...b, status: 'seeded' })))
    .with({ type: 'BundleConfirmed' }, ({ data }) => signed((b) => ({ ...b, status: 'confirmed', blockHeight: data.blockHeight })))
    .with({ type: 'BundlePermanent' }, ({ data }) => signed((b) => ({ ...b, status: 'permanent', blockHeight: data.blockHeight })))
    .with({ type: 'BundleDropped' }, () => ({ ...state, status: 'dropped' }))
    .exhaustive();
};

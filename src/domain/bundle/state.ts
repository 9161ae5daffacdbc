import { match } from 'ts-pattern';
import type { BundleEvent } from './events.js';

export type BundleStatus = 'planned' | 'prepared' | 'posted' | 'seeded' | 'confirmed' | 'permanent' | 'dropped';

export interface BundleItem {
  id: string;
  size: number;
  offset: number;
}

export interface Bundle {
  planId: string;
  status: BundleStatus;
  items: BundleItem[];
  headerSize: number;
  totalSize: number;
  plannedAt: number;
  txId?: string;
  anchor?: string;
  anchorHeight?: number;
  dataRoot?: string;
  tx?: Record<string, unknown>;
  /** height of the block holding the transaction, once seen */
  blockHeight?: number;
  /** planned, and recorded waiting for the service wallet to be funded (since this time) */
  awaitingFundsSince?: number;
  /** the newest fencing token recorded on the stream: commands under an older one are refused */
  fence?: number;
}

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
    .with({ type: 'BundlePosted' }, () => ({ ...state, status: 'posted' }))
    .with({ type: 'BundleSeeded' }, () => ({ ...state, status: 'seeded' }))
    .with({ type: 'BundleConfirmed' }, ({ data }) => ({ ...state, status: 'confirmed', blockHeight: data.blockHeight }))
    .with({ type: 'BundlePermanent' }, ({ data }) => ({ ...state, status: 'permanent', blockHeight: data.blockHeight }))
    .with({ type: 'BundleDropped' }, () => ({ ...state, status: 'dropped' }))
    .exhaustive();
};

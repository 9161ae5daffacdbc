import { match } from 'ts-pattern';
import type { BundleEvent, MinedBlock } from './events.js';
import { LeaseLost } from './lease.js';
import { ItemAlreadyPosted } from '../errors.js';
import { hasTransaction, isLive, type BundleItem, type BundleState } from './state.js';

/** the fencing token of the bundler sending the command (lease.ts); absent: a bundler without a lease */
type Fence = { fence?: number };
/** the block the gateway says the transaction is in; `blockHash` when the gateway named it */
type BlockSeen = { planId: string; blockHeight: number; blockHash?: string; confirmations: number; now: number };

/**
 * The bundle aggregate: a plan moves forward one recorded step at a time. Pure: the gateway's
 * answers come in the commands. A step already taken (a restart doing it again) decides nothing.
 */
export type BundleCommand =
  | { type: 'Plan'; data: Fence & { planId: string; items: BundleItem[]; headerSize: number; totalSize: number; now: number } }
  | {
      type: 'MarkPrepared';
      data: Fence & {
        planId: string;
        txId: string;
        reward: string;
        anchor: string;
        anchorHeight: number;
        dataRoot: string;
        dataSize: number;
        tx: Record<string, unknown>;
        now: number;
      };
    }
  | { type: 'MarkPosted'; data: Fence & { planId: string; now: number } }
  | { type: 'MarkSeeded'; data: Fence & { planId: string; now: number } }
  | { type: 'MarkConfirmed'; data: Fence & BlockSeen }
  | { type: 'MarkPermanent'; data: Fence & BlockSeen & { block?: MinedBlock } }
  | { type: 'AwaitFunds'; data: Fence & { planId: string; reward: string; balance: string; address: string; now: number } }
  /** `countsAsAttempt` false: a drop not about this bundle (see BundleDropped); default true */
  | { type: 'Drop'; data: Fence & { planId: string; reason: string; damagedItemIds?: string[]; countsAsAttempt?: boolean; now: number } }
  /**
   * an operator's hold of `itemId` (src/app/quarantine.ts): a bundle not yet signed is dropped (no
   * attempt counted; its other items are planned again); a signed one is refused with ItemAlreadyPosted
   */
  | { type: 'DropForHold'; data: Fence & { planId: string; itemId: string; by: string; now: number } };

/**
 * Fenced: a command under a token older than the newest recorded on the bundle's stream comes from
 * a bundler that lost its lease after another advanced this bundle, and throws LeaseLost; each event
 * decided records the command's token, so the next holder's commands fence out this one's.
 */
export function decideBundle(command: BundleCommand, state: BundleState): BundleEvent[] {
  const { fence } = command.data;
  if (fence !== undefined && state?.fence !== undefined && fence < state.fence) {
    throw new LeaseLost(`bundle ${command.data.planId} was advanced under fencing token ${state.fence}; ${command.type} carries ${fence}`);
  }
  const events = decideStep(command, state);
  return fence === undefined ? events : events.map((e) => ({ ...e, data: { ...e.data, fence } }) as BundleEvent);
}

const decideStep = (command: BundleCommand, state: BundleState): BundleEvent[] =>
  match(command)
    .returnType<BundleEvent[]>()
    .with({ type: 'Plan' }, ({ data: { now, ...d } }) => (state ? [] : [{ type: 'BundlePlanned', data: { ...d, timestamp: now } }]))
    // once per bundle: a bundle still waiting at the next pass decides nothing
    .with({ type: 'AwaitFunds' }, ({ data: { now, ...d } }) =>
      state?.status === 'planned' && state.awaitingFundsSince === undefined ? [{ type: 'BundleAwaitingFunds', data: { ...d, timestamp: now } }] : [],
    )
    .with({ type: 'MarkPrepared' }, ({ data: { now, ...d } }) =>
      state?.status === 'planned' ? [{ type: 'BundlePrepared', data: { ...d, itemIds: state.items.map((i) => i.id), timestamp: now } }] : [],
    )
    .with({ type: 'MarkPosted' }, ({ data: { now, planId } }) =>
      state?.status === 'prepared' ? [{ type: 'BundlePosted', data: { planId, txId: state.txId, timestamp: now } }] : [],
    )
    .with({ type: 'MarkSeeded' }, ({ data: { now, planId } }) =>
      state?.status === 'posted' ? [{ type: 'BundleSeeded', data: { planId, txId: state.txId, timestamp: now } }] : [],
    )
    .with({ type: 'MarkConfirmed' }, ({ data: { now, ...d } }) =>
      state?.status === 'seeded' ? [{ type: 'BundleConfirmed', data: { ...d, txId: state.txId, timestamp: now } }] : [],
    )
    .with({ type: 'MarkPermanent' }, ({ data: { now, ...d } }) =>
      state?.status === 'seeded' || state?.status === 'confirmed'
        ? [{ type: 'BundlePermanent', data: { ...d, itemIds: state.items.map((i) => i.id), txId: state.txId, timestamp: now } }]
        : [],
    )
    // Decided against the stream as it stands: the bundler's MarkPrepared is appended at the same
    // revision, so of a hold and a signature exactly one comes first, and the other sees it.
    .with({ type: 'DropForHold' }, ({ data: { now, planId, itemId, by } }) => {
      if (state?.status === 'planned') {
        const reason = `item ${itemId} quarantined by ${by}: planned again without it`;
        return [{ type: 'BundleDropped', data: { planId, reason, itemIds: state.items.map((i) => i.id), countsAsAttempt: false, timestamp: now } }];
      }
      if (state && hasTransaction(state)) throw new ItemAlreadyPosted(`${itemId} is in bundle ${planId}, signed as transaction ${state.txId}`);
      return [];
    })
    .with({ type: 'Drop' }, ({ data: { now, countsAsAttempt = true, ...d } }) =>
      isLive(state)
        ? [
            {
              type: 'BundleDropped',
              data: { ...d, itemIds: state.items.map((i) => i.id), ...(hasTransaction(state) ? { txId: state.txId } : {}), countsAsAttempt, timestamp: now },
            },
          ]
        : [],
    )
    .exhaustive();

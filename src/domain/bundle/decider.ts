import { match } from 'ts-pattern';
import type { BundleEvent } from './events.js';
import { isLive, type BundleItem, type BundleState, type BundleStatus } from './state.js';

/**
 * The bundle aggregate: a plan moves forward one recorded step at a time. Pure: the gateway's
 * answers come in the commands. A step already taken (a restart doing it again) decides nothing.
 */
export type BundleCommand =
  | { type: 'Plan'; data: { planId: string; items: BundleItem[]; headerSize: number; totalSize: number; now: number } }
  | {
      type: 'MarkPrepared';
      data: {
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
  | { type: 'MarkPosted'; data: { planId: string; now: number } }
  | { type: 'MarkSeeded'; data: { planId: string; now: number } }
  | { type: 'MarkConfirmed'; data: { planId: string; blockHeight: number; confirmations: number; now: number } }
  | { type: 'MarkPermanent'; data: { planId: string; blockHeight: number; confirmations: number; now: number } }
  | { type: 'AwaitFunds'; data: { planId: string; reward: string; balance: string; address: string; now: number } }
  /** `countsAsAttempt` false: a drop not about this bundle (see BundleDropped); default true */
  | { type: 'Drop'; data: { planId: string; reason: string; damagedItemIds?: string[]; countsAsAttempt?: boolean; now: number } };

const at = (state: BundleState, status: BundleStatus) => state?.status === status;

export const decideBundle = (command: BundleCommand, state: BundleState): BundleEvent[] =>
  match(command)
    .returnType<BundleEvent[]>()
    .with({ type: 'Plan' }, ({ data: { now, ...d } }) => (state ? [] : [{ type: 'BundlePlanned', data: { ...d, timestamp: now } }]))
    // once per bundle: a bundle still waiting at the next pass decides nothing
    .with({ type: 'AwaitFunds' }, ({ data: { now, ...d } }) =>
      at(state, 'planned') && state!.awaitingFundsSince === undefined ? [{ type: 'BundleAwaitingFunds', data: { ...d, timestamp: now } }] : [],
    )
    .with({ type: 'MarkPrepared' }, ({ data: { now, ...d } }) =>
      at(state, 'planned') ? [{ type: 'BundlePrepared', data: { ...d, itemIds: state!.items.map((i) => i.id), timestamp: now } }] : [],
    )
    .with({ type: 'MarkPosted' }, ({ data: { now, planId } }) =>
      at(state, 'prepared') ? [{ type: 'BundlePosted', data: { planId, txId: state!.txId!, timestamp: now } }] : [],
    )
    .with({ type: 'MarkSeeded' }, ({ data: { now, planId } }) =>
      at(state, 'posted') ? [{ type: 'BundleSeeded', data: { planId, txId: state!.txId!, timestamp: now } }] : [],
    )
    .with({ type: 'MarkConfirmed' }, ({ data: { now, ...d } }) =>
      at(state, 'seeded') ? [{ type: 'BundleConfirmed', data: { ...d, txId: state!.txId!, timestamp: now } }] : [],
    )
    .with({ type: 'MarkPermanent' }, ({ data: { now, ...d } }) =>
      at(state, 'seeded') || at(state, 'confirmed')
        ? [{ type: 'BundlePermanent', data: { ...d, itemIds: state!.items.map((i) => i.id), txId: state!.txId!, timestamp: now } }]
        : [],
    )
    .with({ type: 'Drop' }, ({ data: { now, countsAsAttempt = true, ...d } }) =>
      isLive(state)
        ? [
            {
              type: 'BundleDropped',
              data: { ...d, itemIds: state.items.map((i) => i.id), ...(state.txId ? { txId: state.txId } : {}), countsAsAttempt, timestamp: now },
            },
          ]
        : [],
    )
    .exhaustive();

import { match } from 'ts-pattern';
import type { Receipt } from '../receipt.js';
import { ItemDamaged, ItemNotFailed, ItemQuarantined, TxNotFound } from '../errors.js';
import type { DataItemAccepted, DataItemBridged, DataItemDamaged, DataItemEvent, DataItemQuarantined, DataItemRequeued, ItemBytesRetired } from './events.js';
import { afterPart, decideNestedPart, noNestedIndex, type NestedIndexProgress, type RecordNestedPart } from './nestedIndex.js';

/**
 * The data item aggregate: accepted once; a second acceptance decides nothing and yields the
 * original receipt. Its stored bytes may later be found damaged, and a new upload of the same
 * bytes repairs it. Failed (out of bundle attempts), an operator may put it back in the queue. An
 * item whose payload is a bundle has the items nested in it indexed on its stream, a part at a time.
 */

export type DataItemState =
  | { status: 'absent' }
  | {
      status: 'accepted';
      receipt: Receipt;
      /** what the stored bytes must be: the acceptance's digest and size, under its blob key */
      sha256: string;
      rawContentLength: number;
      blobKey: string;
      /** where its payload starts in those bytes */
      payloadDataStart: number;
      /** what it was charged, in winc ('0': free) */
      winc: string;
      /** the acceptance's time */
      acceptedAt: number;
      payer?: string;
      reservationId?: string;
      uploadId?: string;
      /** FAILED: out of bundle attempts, and not requeued since */
      failed?: { reason: string; attempts: number };
      /** how many times it has failed (requeued in between): a refund and a requeue's charge name the failure */
      failures?: number;
      /** the last requeue, while the item has not failed again since */
      requeued?: { by: string; reason: string; at: number };
      /** its stored bytes were found not to be the accepted ones, and not repaired since */
      damaged?: boolean;
      /** its payload is a bundle (the acceptance said so): how far the index of its nested items is */
      nested?: NestedIndexProgress;
      /** held out of bundling and reads (quarantined), and not released since */
      quarantined?: { by: string; reason: string; at: number; rule?: string };
      /** its local bytes were given up after its bundle was permanent: read from the gateway since */
      retired?: true;
    };
export const initialState: DataItemState = { status: 'absent' };

/** `hold`: an operator's rule holds the item from its acceptance on (QUARANTINE_RULES): recorded with it, in one append */
export type AcceptDataItem = { type: 'AcceptDataItem'; data: DataItemAccepted['data']; hold?: Omit<DataItemQuarantined['data'], 'id' | 'timestamp'> };
/** what the bundler found under the item's blob key; `now` the time it was found */
export type RecordDamage = {
  type: 'RecordDamage';
  data: Pick<DataItemDamaged['data'], 'id' | 'found' | 'size' | 'sha256' | 'planId'> & { now: number };
};
/** a new upload of the item, verified, whose bytes are `sha256` and `size` (already stored under the blob key) */
export type RecordRepair = { type: 'RecordRepair'; data: { id: string; sha256: string; size: number; uploadId?: string; now: number } };
/** an operator puts a FAILED item back in the bundle queue: `by` who, `reason` why, `now` when */
export type RequeueItem = { type: 'RequeueItem'; data: { id: string; by: string; reason: string; now: number } };
/** the bundler: the item's bundles were dropped `attempts` times, the limit; `now` when */
export type FailItem = { type: 'FailItem'; data: { id: string; attempts: number; reason: string; now: number } };
/** the optical bridge: what became of the posts of these items' headers to one gateway; `now` when */
export type RecordBridged = { type: 'RecordBridged'; data: Omit<DataItemBridged['data'], 'timestamp'> & { now: number } };
/** an operator holds the item out of bundling and reads (`by` who, `reason` why, `now` when) */
export type QuarantineItem = { type: 'QuarantineItem'; data: { id: string; by: string; reason: string; now: number } };
/** an operator lifts the hold; `refused`: the hold came too late for this signed bundle (src/app/quarantine.ts) */
export type ReleaseItem = { type: 'ReleaseItem'; data: { id: string; by: string; reason: string; refused?: { planId: string; txId: string }; now: number } };
/**
 * The retention pass: the item's bundle `planId` (transaction `bundleId`, the item at
 * `startOffsetInRootBundle`) was recorded permanent at `permanentAt`, and the retention time is over
 */
export type RetireBytes = {
  type: 'RetireBytes';
  data: Pick<ItemBytesRetired['data'], 'id' | 'planId' | 'bundleId' | 'startOffsetInRootBundle' | 'permanentAt'> & { now: number };
};
export type { RecordNestedPart } from './nestedIndex.js';
export type DataItemCommand =
  AcceptDataItem | RecordDamage | RecordRepair | RequeueItem | FailItem | RecordNestedPart | RecordBridged | QuarantineItem | ReleaseItem | RetireBytes;

type Accepted = Extract<DataItemState, { status: 'accepted' }>;

export const evolve = (state: DataItemState, event: DataItemEvent): DataItemState =>
  match(event)
    .returnType<DataItemState>()
    .with({ type: 'DataItemAccepted' }, ({ data }) => ({
      status: 'accepted' as const,
      receipt: data.receipt,
      sha256: data.sha256,
      rawContentLength: data.rawContentLength,
      blobKey: data.blobKey,
      payloadDataStart: data.payloadDataStart,
      winc: data.winc,
      acceptedAt: data.timestamp,
      ...(data.payer !== undefined ? { payer: data.payer } : {}),
      ...(data.reservationId !== undefined ? { reservationId: data.reservationId } : {}),
      ...(data.uploadId !== undefined ? { uploadId: data.uploadId } : {}),
      ...(data.nestedBundle ? { nested: noNestedIndex } : {}),
    }))
    // a part of an earlier version's index may come without the acceptance's flag: counted all the same
    .with({ type: 'NestedItemsIndexed' }, (event) =>
      state.status === 'accepted' ? { ...state, nested: afterPart(state.nested ?? noNestedIndex, event) } : state,
    )
    .with({ type: 'DataItemFailed' }, ({ data }) => {
      if (state.status !== 'accepted') return state;
      const { requeued: _, ...rest } = state;
      return {
        ...rest,
        failed: { reason: data.reason, attempts: data.attempts },
        failures: (rest.failures ?? 0) + 1,
        ...(rest.nested ? { nested: { ...rest.nested, stopped: true } } : {}),
      };
    })
    .with({ type: 'DataItemRequeued' }, ({ data }) => {
      if (state.status !== 'accepted') return state;
      const { failed: _, ...rest } = state;
      return { ...rest, requeued: { by: data.by, reason: data.reason, at: data.timestamp } };
    })
    .with({ type: 'DataItemDamaged' }, () => (state.status === 'accepted' ? { ...state, damaged: true } : state))
    // a fact about copies of its header elsewhere: nothing the item's own commands decide on
    .with({ type: 'DataItemBridged' }, () => state)
    .with({ type: 'DataItemRepaired' }, () => {
      if (state.status !== 'accepted') return state;
      const { damaged: _, ...repaired } = state;
      return repaired;
    })
    .with({ type: 'DataItemQuarantined' }, ({ data }) =>
      state.status === 'accepted'
        ? { ...state, quarantined: { by: data.by, reason: data.reason, at: data.timestamp, ...(data.rule !== undefined ? { rule: data.rule } : {}) } }
        : state,
    )
    .with({ type: 'DataItemReleased' }, () => {
      if (state.status !== 'accepted') return state;
      const { quarantined: _, ...released } = state;
      return released;
    })
    .with({ type: 'ItemBytesRetired' }, () => (state.status === 'accepted' ? { ...state, retired: true as const } : state))
    .exhaustive();

/** whether what was found contradicts the acceptance: only then is it damage */
const contradicts = (state: Accepted, found: RecordDamage['data']): boolean =>
  match(found.found)
    .with('missing', () => true)
    .with('short', () => found.size !== undefined && found.size < state.rawContentLength)
    .with('long', () => found.size !== undefined && found.size > state.rawContentLength)
    .with('digest', () => found.sha256 !== undefined && found.sha256 !== state.sha256)
    .exhaustive();

export type Decision = { events: DataItemEvent[]; existing?: Receipt };

/**
 * Only a FAILED item goes back: one requeued and not failed again since decides nothing (a repeated
 * command); a damaged one needs its bytes first (a new upload of the item), since no bundle may
 * carry other bytes under its id; anything else is refused, as is an item never accepted.
 */
function requeue(state: DataItemState, { id, by, reason, now }: RequeueItem['data']): DataItemEvent[] {
  if (state.status !== 'accepted') throw new TxNotFound(id);
  if (state.damaged) throw new ItemDamaged(`${id}: its stored bytes are damaged; upload the same item again to repair it`);
  // held out of bundling: it waits for its release, which puts it back in the queue
  if (state.quarantined && state.failed) throw new ItemQuarantined(`${id} is quarantined: release it before requeuing it`);
  if (!state.failed) {
    if (state.requeued) return [];
    throw new ItemNotFailed(`${id} is not FAILED`);
  }
  const data: DataItemRequeued['data'] = {
    id,
    by,
    reason,
    previousFailure: state.failed.reason,
    previousAttempts: state.failed.attempts,
    rawContentLength: state.rawContentLength,
    acceptedAt: state.acceptedAt,
    timestamp: now,
  };
  return [{ type: 'DataItemRequeued' as const, data }];
}

export const decide = (command: DataItemCommand, state: DataItemState): Decision =>
  match(command)
    .returnType<Decision>()
    .with({ type: 'AcceptDataItem' }, (c) =>
      state.status === 'accepted'
        ? { events: [], existing: state.receipt }
        : {
            events: [
              { type: 'DataItemAccepted' as const, data: c.data },
              ...(c.hold ? [{ type: 'DataItemQuarantined' as const, data: { id: c.data.id, ...c.hold, timestamp: c.data.timestamp } }] : []),
            ],
          },
    )
    // Found once: a second finding (a restart looking again) adds nothing. A failed item is in no
    // bundle again: its bytes do not matter any more.
    .with({ type: 'RecordDamage' }, ({ data: { now, ...found } }) =>
      state.status === 'accepted' && !state.failed && !state.damaged && contradicts(state, { ...found, now })
        ? { events: [{ type: 'DataItemDamaged' as const, data: { ...found, blobKey: state.blobKey, timestamp: now } }] }
        : { events: [] },
    )
    // only the accepted bytes repair it: the same id with other bytes is not the item that was paid for
    .with({ type: 'RecordRepair' }, ({ data: { now, size, ...d } }) =>
      state.status === 'accepted' && state.damaged && d.sha256 === state.sha256 && size === state.rawContentLength
        ? { events: [{ type: 'DataItemRepaired' as const, data: { ...d, timestamp: now } }] }
        : { events: [] },
    )
    .with({ type: 'RequeueItem' }, ({ data }) => ({ events: requeue(state, data) }))
    // once: an item already FAILED (a second pass after a crash) or never accepted decides nothing
    .with({ type: 'FailItem' }, ({ data: { now, ...d } }) =>
      state.status === 'accepted' && !state.failed ? { events: [{ type: 'DataItemFailed' as const, data: { ...d, timestamp: now } }] } : { events: [] },
    )
    // nothing for an item never accepted or whose payload is no bundle
    .with({ type: 'RecordNestedPart' }, ({ data }) => ({
      events: state.status === 'accepted' && state.nested ? decideNestedPart(state.nested, data) : [],
    }))
    // only of an accepted item (the bridge read its acceptance from the store)
    .with({ type: 'RecordBridged' }, ({ data: { now, ...d } }) => ({
      events: state.status === 'accepted' ? [{ type: 'DataItemBridged' as const, data: { ...d, timestamp: now } }] : [],
    }))
    // held once: holding a held item decides nothing (the first hold's who and why stand)
    .with({ type: 'QuarantineItem' }, ({ data: { now, ...d } }) => {
      if (state.status !== 'accepted') throw new TxNotFound(d.id);
      return { events: state.quarantined ? [] : [{ type: 'DataItemQuarantined' as const, data: { ...d, timestamp: now } }] };
    })
    // released once: releasing an item not held decides nothing
    .with({ type: 'ReleaseItem' }, ({ data: { now, ...d } }) => {
      if (state.status !== 'accepted') throw new TxNotFound(d.id);
      return { events: state.quarantined ? [{ type: 'DataItemReleased' as const, data: { ...d, timestamp: now } }] : [] };
    })
    .with({ type: 'RetireBytes' }, ({ data }) => ({ events: retire(state, data) }))
    .exhaustive();

/**
 * Once, and only while the local bytes are still needed by nothing the item's own stream knows of:
 * never of a FAILED or damaged item (its bytes are not the permanent ones, or no bundle holds them),
 * nor of a root whose nested index is not complete (the index reads the blob). The bundle's
 * permanence is the caller's fact, read from the bundle's stream.
 */
function retire(state: DataItemState, { now, ...d }: RetireBytes['data']): ItemBytesRetired[] {
  if (state.status !== 'accepted' || state.retired || state.failed || state.damaged) return [];
  if (state.nested && !state.nested.complete) return [];
  const data = { ...d, blobKey: state.blobKey, sha256: state.sha256, rawContentLength: state.rawContentLength, timestamp: now };
  return [{ type: 'ItemBytesRetired' as const, data }];
}

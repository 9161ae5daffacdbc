import type { EventMetadata, EventStore } from '../ports/eventStore.js';
import { fromRecorded } from '../domain/events.js';
import type { DataItemRepository } from './acceptance/dataItems.js';
import type { AccountRepository } from './accounts/accounts.js';

/**
 * The operator's way back for FAILED items (shared by `POST /admin/items/:id/requeue` and
 * `npm run requeue`; nothing here is HTTP): DataItemRequeued on the item's own stream puts it back
 * in the bundle queue, accepted and waiting for a bundle, with who asked and why.
 *
 * A paid item is charged again first: its failure's charge was refunded (or is about to be), and a
 * requeued item may become permanent, so it must be paid for (never a free permanent item). The
 * account records that charge once per failure (`ChargeForRequeue`: a recharge of the refunded winc,
 * or, not refunded yet, the refund and the recharge together so the refunder gives back nothing more),
 * and refuses it when the account cannot pay: then the item stays FAILED and its refund stands.
 * A crash between the charge and the requeue leaves the charge recorded once; the requeue asked again
 * finds it and only appends the requeue.
 */
export interface RequeueDeps {
  items: DataItemRepository;
  accounts: Pick<AccountRepository, 'execute'>;
  now: () => number;
  /** answer once the read models show the requeue (the status query right after sees it) */
  awaitProjection?: (position: bigint) => Promise<unknown>;
}

export interface RequeueInput {
  id: string;
  /** who asks: an operator's name (the CLI's `--by`, the admin body's `by`) */
  by: string;
  reason: string;
}

export type RequeueOutcome =
  | { id: string; requeued: true; previousFailure: string; position: bigint }
  /** requeued before and not failed again since: nothing to do */
  | { id: string; requeued: false; already: { by: string; reason: string; at: number } };

export function createRequeue(deps: RequeueDeps) {
  const { items } = deps;
  /** refused (typed errors): unknown (TxNotFound), damaged (ItemDamaged), not FAILED (ItemNotFailed) */
  return async function requeue(input: RequeueInput, metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<RequeueOutcome> {
    await chargeAgain(deps, input, metadata);
    const { events, state, position } = await items.execute({ type: 'RequeueItem', data: { ...input, now: deps.now() } }, metadata);
    const event = events[0];
    if (event?.type === 'DataItemRequeued' && position !== undefined) {
      await deps.awaitProjection?.(position);
      return { id: input.id, requeued: true, previousFailure: event.data.previousFailure, position };
    }
    // the decider decides nothing only for an item requeued and not failed since
    if (state.status !== 'accepted' || !state.requeued) throw new Error(`requeue of ${input.id} decided nothing`);
    return { id: input.id, requeued: false, already: state.requeued };
  };
}

/** the charge a paid FAILED item must carry again before it is requeued (refused: InsufficientBalance) */
async function chargeAgain({ items, accounts, now }: RequeueDeps, input: RequeueInput, metadata: Omit<EventMetadata, 'schemaVersion'>) {
  const item = await items.read(input.id);
  // not FAILED, damaged, unknown or free: the item's decider answers (or nothing is owed)
  if (item.status !== 'accepted' || !item.failed || item.damaged) return;
  if (item.payer === undefined || item.reservationId === undefined || BigInt(item.winc) === 0n) return;
  const data = {
    address: item.payer,
    dataItemId: input.id,
    reservationId: item.reservationId,
    winc: BigInt(item.winc),
    failure: item.failures ?? 1,
    by: input.by,
    now: now(),
  };
  await accounts.execute({ type: 'ChargeForRequeue', data }, metadata);
}

/** the items FAILED now, from the event store itself: out of attempts (to requeue) and damaged (to upload again) */
export interface FailedItems {
  failed: string[];
  damaged: string[];
}

/**
 * Every item FAILED now, read from all events in order (the event store is the record; a read model
 * may lag). Memory: the ids of items failed or damaged at the moment.
 */
export async function failedItemsNow(eventStore: Pick<EventStore, 'readAll'>): Promise<FailedItems> {
  const failed = new Set<string>();
  const damaged = new Set<string>();
  for await (const recorded of eventStore.readAll()) {
    if (!recorded.type.startsWith('DataItem')) continue;
    const event = fromRecorded(recorded);
    if (!event) continue;
    switch (event.type) {
      case 'DataItemFailed':
        failed.add(event.data.id);
        break;
      case 'DataItemRequeued':
        failed.delete(event.data.id);
        break;
      case 'DataItemDamaged':
        damaged.add(event.data.id);
        break;
      case 'DataItemRepaired':
        damaged.delete(event.data.id);
        break;
      default:
        break;
    }
  }
  // a damaged item is FAILED/damaged whether or not it also ran out of attempts: it needs its bytes
  return { failed: [...failed].filter((id) => !damaged.has(id)), damaged: [...damaged] };
}

import type { EventMetadata } from '../ports/eventStore.js';
import type { ReadStore } from '../ports/readStore.js';
import { ItemAlreadyPosted, ItemNested, TxNotFound } from '../domain/errors.js';
import { hasTransaction } from '../domain/bundle/state.js';
import { collectionOf } from '../../projections/definition.js';
import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { nestedOffsetsProjection, type NestedOffsetsDocument } from '../../projections/nestedOffsets.js';
import type { DataItemRepository } from './acceptance/dataItems.js';
import type { BundleRepository } from './bundles.js';

/**
 * The operator's hold of an accepted item (quarantine), shared by `PUT /admin/items/:id/quarantine`
 * and `npm run quarantine`; nothing here is HTTP. A hold keeps the item out of every bundle and out of
 * every read of its bytes (451), nested items included, until it is released; who and why are on the
 * item's stream (DataItemQuarantined, DataItemReleased).
 *
 * A hold is refused once the item's bundle is signed (BundlePrepared): the bundler posts a signed
 * bundle without looking back, so the item is on Arweave or on its way there. A bundle only planned
 * is dropped (no attempt counted), and its other items are planned again without the held one.
 *
 * Why that answer is true when the bundler signs at the same moment: the hold is appended to the
 * item's stream first, then the item's plan is found and dropped on the bundle's own stream
 * (DropForHold), appended at the revision it read, as the bundler appends MarkPrepared: of the two,
 * exactly one comes first and the other sees it. A plan made after the hold is appended is dropped
 * by the bundler itself, which reads each item's stream before it signs (src/app/bundler/advance.ts),
 * and a plan made before it is in the read models the hold reads (the bundler signs a plan only
 * once the read models show it). A hold that finds its item signed after all is recorded as lifted
 * (DataItemReleased with `refused`), so the item's stream never says held while it is posted.
 */
export interface QuarantineDeps {
  items: DataItemRepository;
  bundles: Pick<BundleRepository, 'read' | 'execute'>;
  readStore: Pick<ReadStore, 'get'>;
  now: () => number;
  /** resolves once the read models reflect `position` (bounded): the hold then reads the item's plan there */
  awaitProjection?: (position: bigint) => Promise<unknown>;
}

export interface HoldInput {
  id: string;
  /** who: an operator's name (the CLI's `--by`, the admin body's `by`) */
  by: string;
  reason: string;
}

export type HoldOutcome =
  | { id: string; held: true; at: number; droppedPlan?: string }
  /** held before and not released since: nothing to do */
  | { id: string; held: false; already: { by: string; reason: string; at: number } };

export type ReleaseOutcome = { id: string; released: boolean };

type Metadata = Omit<EventMetadata, 'schemaVersion'>;

export function createQuarantine(deps: QuarantineDeps) {
  const { items, bundles, readStore, now } = deps;
  const statusOf = async (id: string) => (await readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))?.doc;

  /** unknown (TxNotFound) or nested in another item (ItemNested, naming its root) */
  async function notOwnItem(id: string): Promise<never> {
    const nested = (await readStore.get<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), id))?.doc;
    if (nested) throw new ItemNested(`${id} is nested in ${nested.rootId}: its bytes are that item's; hold ${nested.rootId}`);
    throw new TxNotFound(id);
  }

  /** the item's plan as the read models know it, read again from its own stream */
  async function planOf(id: string) {
    const planId = (await statusOf(id))?.planId;
    return planId === undefined ? undefined : bundles.read(planId);
  }

  /** throws ItemAlreadyPosted when the item's bundle has its transaction: nothing is recorded */
  async function refuseIfSigned(id: string): Promise<void> {
    const plan = await planOf(id);
    if (plan && hasTransaction(plan)) throw new ItemAlreadyPosted(`${id} is in bundle ${plan.planId}, signed as transaction ${plan.txId}`);
  }

  /** drops the item's plan if it is only planned; throws ItemAlreadyPosted (with the hold lifted) when it got signed first */
  async function leavePlan(input: HoldInput, metadata: Metadata): Promise<string | undefined> {
    const plan = await planOf(input.id);
    if (!plan) return undefined;
    try {
      const { events } = await bundles.execute({ type: 'DropForHold', data: { planId: plan.planId, itemId: input.id, by: input.by, now: now() } }, metadata);
      return events.length > 0 ? plan.planId : undefined;
    } catch (error) {
      if (!(error instanceof ItemAlreadyPosted)) throw error;
      const signed = await bundles.read(plan.planId);
      const refused = { planId: plan.planId, txId: signed && hasTransaction(signed) ? signed.txId : '' };
      const reason = `hold too late: bundle ${refused.planId} was signed first`;
      await items.execute({ type: 'ReleaseItem', data: { id: input.id, by: input.by, reason, refused, now: now() } }, metadata);
      throw error;
    }
  }

  return {
    /** refused (typed errors): unknown (TxNotFound), nested (ItemNested), in a signed bundle (ItemAlreadyPosted) */
    async hold(input: HoldInput, metadata: Metadata): Promise<HoldOutcome> {
      const state = await items.read(input.id);
      if (state.status !== 'accepted') return notOwnItem(input.id);
      if (state.quarantined) return { id: input.id, held: false, already: state.quarantined };
      await refuseIfSigned(input.id);
      const at = now();
      const { position } = await items.execute({ type: 'QuarantineItem', data: { ...input, now: at } }, metadata);
      if (position !== undefined) await deps.awaitProjection?.(position);
      const droppedPlan = await leavePlan(input, metadata);
      return { id: input.id, held: true, at, ...(droppedPlan !== undefined ? { droppedPlan } : {}) };
    },

    /** unknown: TxNotFound; nested: ItemNested; not held: `released: false` */
    async release(input: HoldInput, metadata: Metadata): Promise<ReleaseOutcome> {
      const state = await items.read(input.id);
      if (state.status !== 'accepted') return notOwnItem(input.id);
      const { events, position } = await items.execute({ type: 'ReleaseItem', data: { ...input, now: now() } }, metadata);
      if (position !== undefined) await deps.awaitProjection?.(position);
      return { id: input.id, released: events.length > 0 };
    },
  };
}
export type Quarantine = ReturnType<typeof createQuarantine>;

import { AppendOutcomeUnknown, WrongExpectedRevision, type EventMetadata, type EventStore } from '../../ports/eventStore.js';
import type { Pricing } from '../../ports/pricing.js';
import type { BlockHeightSource } from '../../ports/gateway.js';
import { itemBlobKey, type DataItemId } from '../../domain/ids.js';
import type { AcceptDataItem, DataItemState } from '../../domain/dataItem/decider.js';
import type { Receipt } from '../../domain/receipt.js';
import { issueReceipt } from '../../receipts/buildReceipt.js';
import type { ReceiptSigner } from '../../receipts/receiptSigner.js';
import type { ReceivedDataItem } from './receiveDataItem.js';
import type { VerifiedDataItem } from '../../verify/index.js';
import { metadataOf, type RequestContext } from '../context.js';
import type { AccountRepository } from '../accounts/accounts.js';
import { releasePayment, settlePayment, type Payment } from '../accounts/payments.js';
import { reserveOrAwaitRacing } from './racingAcceptance.js';
import { repairIfDamaged } from './repairDataItem.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { isBundle } from '../nested/bundleTags.js';
import { Forbidden, ServiceUnavailable } from '../../domain/errors.js';
import { ruleFor } from '../../domain/quarantine/rules.js';
import type { QuarantineRule } from '../../config.js';
import { acceptOrWithdraw } from './unacceptedBytes.js';
import { findAcceptance } from './unknownAcceptance.js';
import type { DataItemRepository } from './dataItems.js';
import { ensureNotBlocked, type BlockCheck } from '../blocklist.js';
import { refuseBlockedNested } from '../nested/blockedNested.js';
import { bestEffort } from '../../bestEffort.js';
import { applyTaggedApproval, ensureRevocable, taggedApprovalOf, type TaggedApproval, type TaggedApprovalAnswer } from '../accounts/taggedApprovals.js';

export interface AcceptDeps {
  eventStore: EventStore;
  /**
   * the process's one data-item repository (src/wiring/shared.ts): every read of an item and every
   * command on it in this process goes through it, so that its per-item lock serialises them
   */
  items: DataItemRepository;
  pricing: Pricing;
  /** the height receipts' deadlines count from: none fresh, no receipt is signed (503) */
  blockHeight: Pick<BlockHeightSource, 'current'>;
  signer: ReceiptSigner;
  accounts: AccountRepository;
  receiptSettings: { dataCaches: string[]; fastFinalityIndexes: string[]; publicModulus: string; deadlineHeightOffset: number };
  /** single-process mode: resolves once the read models reflect `position` (bounded wait) */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  blobStore: BlobStore;
  /**
   * indexes the items nested in an accepted bundle item in the background (never awaited: the
   * answer does not wait for it; the recovery pass finishes what it leaves)
   */
  indexNested?: (rootId: string, metadata: Omit<EventMetadata, 'schemaVersion'>) => unknown;
  /**
   * told of each item whose acceptance is about to be appended (before, so an event read at once finds
   * it): the optical bridge takes the header from here (AcceptedHeaders)
   */
  headerHandoff?: (item: VerifiedDataItem) => void;
  /**
   * the operator's block list: checked again here, by every address of the owner's key, whatever way
   * the item came in (a block made while it streamed, or its header chunk long ago), and for the items
   * nested in a bundle item before its receipt
   */
  blocklist?: BlockCheck;
  /** the operator's rules (QUARANTINE_RULES): an item that matches one is held from its acceptance on, or refused */
  quarantineRules?: readonly QuarantineRule[];
  /** entries of bundles nested in a free item that indexing (and so the block list's look) takes */
  nestedFreeMaxItems?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  /** the service's clock (the composition root's): receipts' timestamps, payments, the reservation's deadline */
  now: () => number;
  /**
   * the reconciler releases a reservation left open this long when its item is not accepted: an
   * acceptance that comes later than half of it gives up (503, the reservation released) rather
   * than race that release and end up accepted with its payment given back
   */
  reservationTimeoutMs?: number;
}

/** `approvals`: what the item's credit-sharing tags changed (taggedApprovals.ts), when it has them */
export type AcceptOutcome =
  | { kind: 'accepted'; receipt: Receipt; approvals?: TaggedApprovalAnswer }
  /** `uploadId`: the multi-part upload that stored it, if one did */
  | { kind: 'exists'; receipt: Receipt; uploadId?: string; approvals?: TaggedApprovalAnswer };

type Accepted = Extract<DataItemState, { status: 'accepted' }>;

const existsOutcome = (state: Accepted): AcceptOutcome => ({
  kind: 'exists',
  receipt: state.receipt,
  ...(state.uploadId !== undefined ? { uploadId: state.uploadId } : {}),
});

/**
 * The block height to sign a receipt with; a ServiceUnavailable when none was read from the gateway
 * recently enough (BLOCK_HEIGHT_MAX_AGE_MS): a receipt's deadline is never made up. The routes refuse
 * such uploads before their body is read (blockHeightGate.ts); this holds for every other way in.
 */
export function freshBlockHeight(deps: Pick<AcceptDeps, 'blockHeight'>): number {
  const height = deps.blockHeight.current();
  if (height === undefined) throw new ServiceUnavailable('no block height read from the gateway recently enough to sign a receipt');
  return height;
}

/**
 * Accepts a verified item whose bytes sit in a temporary blob: prices it, reserves the price,
 * records the acceptance, then settles. A duplicate (found before or by the append) answers with
 * the original receipt and costs nothing. Thrown: a refusal or failure before the append (nothing
 * accepted, nothing charged), a definite failure of the append (the reservation given back), and
 * an append of unknown outcome (AppendOutcomeUnknown, a 503: the reservation left to the reconciler).
 */
export async function acceptDataItem(
  received: ReceivedDataItem,
  input: {
    token: string;
    paidBy?: readonly string[];
    /** the account that pays, whoever owns the item: one an x402 payment for this item was just credited to */
    payer?: string;
    uploadId?: string;
    ctx: RequestContext;
  },
  deps: AcceptDeps,
): Promise<AcceptOutcome> {
  const { verified } = received;
  const id = verified.id as DataItemId;
  const { now } = deps;
  const existing = await deps.items.read(id);
  if (existing.status === 'accepted') {
    await keepIfRepair(received, existing, input, deps);
    return withApprovals(existsOutcome(existing), tagsOfExisting(received), verified.nativeAddress, input, deps);
  }

  let payment: Payment | undefined;
  let acceptedMeanwhile: Accepted | undefined;
  let tagged: TaggedApproval | undefined;
  let rule: QuarantineRule | undefined;
  try {
    ensureNotBlocked(deps.blocklist, { owner: verified, paidBy: input.paidBy ?? [] });
    rule = ruleFor(deps.quarantineRules ?? [], { ...verified, sha256: received.sha256 });
    if (rule?.action === 'refuse') throw new Forbidden(`${id} matches quarantine rule ${rule.name}: ${rule.reason}`);
    // credit-sharing tags that cannot be applied refuse the item before anything is reserved or stored
    tagged = taggedApprovalOf(verified.tags, verified.nativeAddress);
    await ensureRevocable(deps.accounts, verified.nativeAddress, tagged);
    // before a payment is reserved for an item that could not be accepted now
    freshBlockHeight(deps);
    const price = await deps.pricing.priceOf(verified.rawContentLength);
    if (price > 0n) {
      const reserved = await reserveOrAwaitRacing(
        { accounts: deps.accounts, loadItem: () => deps.items.read(id), now },
        input.payer !== undefined
          ? { owner: input.payer, paidBy: [], winc: price, dataItemId: id, ctx: input.ctx }
          : { owner: verified.nativeAddress, paidBy: input.paidBy ?? [], winc: price, dataItemId: id, ctx: input.ctx },
      );
      if (reserved.kind === 'reserved') payment = reserved.payment;
      else acceptedMeanwhile = reserved.state;
    }
  } catch (error) {
    await received.discard();
    throw error;
  }
  if (acceptedMeanwhile) {
    await received.discard();
    return withApprovals(existsOutcome(acceptedMeanwhile), tagged, verified.nativeAddress, input, deps);
  }

  const acceptBy = payment && deps.reservationTimeoutMs !== undefined ? now() + deps.reservationTimeoutMs / 2 : undefined;
  const hold = rule && { by: `rule:${rule.name}`, reason: rule.reason, rule: rule.name };
  deps.headerHandoff?.(verified);
  const recorded = await recordAcceptance(received, { ...input, ...(hold ? { hold } : {}) }, payment, deps, acceptBy);
  if (recorded.kind === 'lostRace') return withApprovals(existsOutcome(recorded.winner), tagged, verified.nativeAddress, input, deps);
  if (recorded.kind === 'unknown') {
    // left open: the reconciler settles it if the acceptance lands, releases it otherwise
    deps.log?.('an acceptance ended without knowing whether it was written; its reservation is left to the reconciler', { id, error: String(recorded.error) });
    throw recorded.error;
  }
  // Accepted: from here on the reservation is owed.
  const settled = payment
    ? await bestEffort(settlePayment(deps.accounts, payment, input.ctx, now()), 'the reconciler settles reservations whose item was accepted')
    : undefined;
  if (isBundle(verified.tags)) deps.indexNested?.(id, metadataOf(input.ctx));
  await deps.awaitProjection?.(settled?.position ?? recorded.position);
  return withApprovals({ kind: 'accepted', receipt: recorded.receipt }, tagged, verified.nativeAddress, input, deps);
}

/** the tags of a re-sent item, read leniently: a malformed tag of an item accepted earlier asks nothing now */
function tagsOfExisting(received: ReceivedDataItem): TaggedApproval | undefined {
  try {
    return taggedApprovalOf(received.verified.tags, received.verified.nativeAddress);
  } catch {
    return undefined;
  }
}

/**
 * Applies the accepted item's credit-sharing tags (once per item: a re-sent item, or a retry after
 * the first application failed, applies them at most once) and adds what changed to the outcome.
 */
async function withApprovals(
  outcome: AcceptOutcome,
  tagged: TaggedApproval | undefined,
  signer: string,
  input: { ctx: RequestContext },
  deps: AcceptDeps,
): Promise<AcceptOutcome> {
  if (!tagged) return outcome;
  const { answer, position } = await applyTaggedApproval(deps.accounts, tagged, {
    payer: signer,
    dataItemId: outcome.receipt.id,
    now: deps.now(),
    ctx: input.ctx,
  });
  if (position !== undefined) await deps.awaitProjection?.(position);
  return { ...outcome, approvals: answer };
}

/** `hold`: a quarantine rule holds the item from its acceptance on (recorded in the same append) */
type AcceptInput = { token: string; uploadId?: string; ctx: RequestContext; hold?: AcceptDataItem['hold'] };

/** How the append of this upload's acceptance ended, as the item's stream tells it. */
type Recorded =
  /** this upload's acceptance is in the stream: its reservation (if any) is owed */
  | { kind: 'accepted'; position: bigint; receipt: Receipt }
  /** another upload of the item was accepted first: its receipt answers; this one's reservation was given back */
  | { kind: 'lostRace'; winner: Accepted }
  /**
   * the append ended with AppendOutcomeUnknown and the stream does not (yet) show it: it may still
   * land, so the reservation stays open for the reconciler; `error` is what the client is answered with
   */
  | { kind: 'unknown'; error: unknown };

/**
 * Appends the acceptance (see appendAcceptance) and tells how it ended. A definite failure (the
 * store refused, the receipt could not be signed, ...) gives the reservation back, discards the
 * bytes and is thrown; a lost race and an unknown outcome are answers, read from the item's stream.
 */
async function recordAcceptance(
  received: ReceivedDataItem,
  input: AcceptInput,
  payment: Payment | undefined,
  deps: AcceptDeps,
  acceptBy: number | undefined,
): Promise<Recorded> {
  const id = received.verified.id as DataItemId;
  const release = async () => {
    if (payment) await bestEffort(releasePayment(deps.accounts, payment, 'upload failed', input.ctx, deps.now()), 'the reconciler releases it');
  };
  try {
    const appended = await acceptOrWithdraw(id, () => appendAcceptance(received, input, payment, deps, acceptBy), {
      accepted: async () => (await deps.items.read(id)).status === 'accepted',
      withdraw: () => received.withdraw(),
      ...(deps.log ? { log: deps.log } : {}),
    });
    return { kind: 'accepted', ...appended };
  } catch (error) {
    if (!AppendOutcomeUnknown.is(error)) {
      // Definite: nothing was accepted, give the reservation back.
      await release();
      if (!WrongExpectedRevision.is(error)) {
        await bestEffort(received.discard(), 'the upload failed; the blob sweep removes what is left');
        throw error;
      }
      const winner = await deps.items.read(id);
      if (winner.status !== 'accepted') throw error;
      return { kind: 'lostRace', winner };
    }
    // The acceptance may be written: never give its reservation back on a guess. The stream says.
    const found = await findAcceptance(deps.items, id, payment);
    if (found.kind === 'ours') return { kind: 'accepted', position: found.position, receipt: found.receipt };
    if (found.kind === 'unknown') return { kind: 'unknown', error };
    await release();
    return { kind: 'lostRace', winner: found.state };
  }
}

/** A re-sent item's bytes are given up, unless they repair its damaged stored bytes. */
async function keepIfRepair(
  received: ReceivedDataItem,
  existing: Accepted,
  input: { uploadId?: string; ctx: RequestContext },
  deps: AcceptDeps,
): Promise<void> {
  try {
    if (await repairIfDamaged(received, existing, input, deps)) return;
  } catch (error) {
    await bestEffort(received.discard(), 'the repair failed; the blob sweep removes what is left');
    throw error;
  }
  await received.discard();
}

/**
 * Makes the bytes durable under `items/<id>`, signs the receipt and has the item's decider append
 * `DataItemAccepted` creating the item's stream. The "no stream" expectation is what makes racing
 * duplicates safe: exactly one append wins; the others get WrongExpectedRevision.
 */
async function appendAcceptance(
  { verified, sha256, commit }: ReceivedDataItem,
  input: AcceptInput,
  payment: Payment | undefined,
  deps: AcceptDeps,
  acceptBy: number | undefined,
): Promise<{ position: bigint; receipt: Receipt }> {
  const id = verified.id as DataItemId;
  const blobKey = itemBlobKey(id);
  // read again at signing time, and before the bytes are committed under the item's key
  const deadlineHeight = freshBlockHeight(deps) + deps.receiptSettings.deadlineHeightOffset;
  // Same id means same signature, and the verifier accepts one canonical encoding only, so a
  // racing upload of the same item writes identical bytes here.
  await commit(blobKey);
  const winc = (payment?.winc ?? 0n).toString();
  if (deps.blocklist && isBundle(verified.tags)) {
    const root = { id, blobKey, rawContentLength: verified.rawContentLength, payloadDataStart: verified.payloadDataStart };
    const limits = deps.nestedFreeMaxItems !== undefined ? { freeMaxItems: deps.nestedFreeMaxItems } : {};
    await refuseBlockedNested({ blobStore: deps.blobStore, blocklist: deps.blocklist, ...limits }, root, winc);
  }
  const timestamp = deps.now();
  const receipt = await issueReceipt(
    { signer: deps.signer, publicModulus: deps.receiptSettings.publicModulus },
    {
      id,
      owner: verified.owner,
      dataCaches: deps.receiptSettings.dataCaches,
      fastFinalityIndexes: deps.receiptSettings.fastFinalityIndexes,
      deadlineHeight,
      timestamp,
      winc,
    },
  );
  const command: AcceptDataItem = {
    type: 'AcceptDataItem',
    data: {
      id,
      signatureType: verified.signatureType,
      owner: verified.owner,
      nativeAddress: verified.nativeAddress,
      token: input.token,
      rawContentLength: verified.rawContentLength,
      payloadDataStart: verified.payloadDataStart,
      payloadContentType: verified.contentType,
      blobKey,
      sha256,
      winc,
      ...(payment ? { payer: payment.payer, reservationId: payment.reservationId } : {}),
      timestamp,
      deadlineHeight,
      receipt,
      ...(input.uploadId ? { uploadId: input.uploadId } : {}),
      ...(isBundle(verified.tags) ? { nestedBundle: true as const } : {}),
      tags: verified.tags.map(({ name, value }) => ({ name, value })),
      ...(verified.target !== undefined ? { target: verified.target } : {}),
      ...(verified.anchor !== undefined ? { anchor: verified.anchor } : {}),
    },
    ...(input.hold ? { hold: input.hold } : {}),
  };
  const tooLate = async () => {
    if (acceptBy !== undefined && deps.now() > acceptBy) {
      throw new ServiceUnavailable(`accepting ${id} took too long after its reservation; the reconciler may release it`);
    }
  };
  // The stream was read at the start and found absent: created without a second read. Its event
  // id is random: two racing first acceptances carry different receipts and must conflict, not be
  // deduplicated into one silent success.
  const { position } = await deps.items.create(command, metadataOf(input.ctx), tooLate);
  // a decision on the initial state always appends
  if (position === undefined) throw new Error(`the acceptance of ${id} decided nothing on a new stream`);
  return { position, receipt };
}

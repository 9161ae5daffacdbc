import { WrongExpectedRevision, type EventStore } from '../ports/eventStore.js';
import type { Pricing } from '../ports/pricing.js';
import type { BlockHeightSource } from '../ports/gateway.js';
import { dataItemStream, newEventId, type DataItemId } from '../domain/ids.js';
import { decide, evolve, initialState, type DataItemState } from '../domain/dataItem/decider.js';
import { fromRecorded, toNewEvent } from '../domain/events.js';
import type { Receipt } from '../domain/receipt.js';
import { issueReceipt } from '../receipts/buildReceipt.js';
import type { ReceiptSigner } from '../receipts/receiptSigner.js';
import type { ReceivedDataItem } from './receiveDataItem.js';
import { metadataOf, type RequestContext } from './context.js';

export interface AcceptDeps {
  eventStore: EventStore;
  pricing: Pricing;
  blockHeight: BlockHeightSource;
  signer: ReceiptSigner;
  receiptSettings: { dataCaches: string[]; fastFinalityIndexes: string[]; publicModulus: string; deadlineHeightOffset: number };
  /** single-process mode: resolves once the read models reflect `position` (bounded wait) */
  awaitProjection?: (position: bigint) => Promise<unknown>;
  now?: () => number;
}

export type AcceptOutcome = { kind: 'accepted'; receipt: Receipt } | { kind: 'exists'; receipt: Receipt };

export async function loadDataItem(eventStore: EventStore, id: DataItemId): Promise<DataItemState> {
  let state = initialState;
  for await (const recorded of eventStore.readStream(dataItemStream(id))) {
    const event = fromRecorded(recorded);
    if (event) state = evolve(state, event);
  }
  return state;
}

/**
 * Accepts a verified item whose bytes sit in a temporary blob: makes the bytes durable under
 * `items/<id>`, signs the receipt and appends `DataItemAccepted` creating the item's stream. The
 * "no stream" expectation is what makes racing duplicates safe: exactly one append wins and every
 * other upload of the same item answers with the winner's receipt.
 */
export async function acceptDataItem(
  received: ReceivedDataItem,
  input: { token: string; uploadId?: string; ctx: RequestContext },
  deps: AcceptDeps,
): Promise<AcceptOutcome> {
  const { verified, writer, sha256 } = received;
  const id = verified.id as DataItemId;
  const existing = await loadDataItem(deps.eventStore, id);
  if (existing.status === 'accepted') {
    await writer.abort();
    return { kind: 'exists', receipt: existing.receipt };
  }
  const blobKey = `items/${id}`;
  // Same id means same signature, and the verifier accepts one canonical encoding only, so a
  // racing upload of the same item writes identical bytes here.
  await writer.commit(blobKey);

  const winc = (await deps.pricing.priceOf(verified.rawContentLength)).toString();
  const timestamp = (deps.now ?? Date.now)();
  const deadlineHeight = deps.blockHeight.current() + deps.receiptSettings.deadlineHeightOffset;
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
  const decision = decide(
    {
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
        timestamp,
        deadlineHeight,
        receipt,
        ...(input.uploadId ? { uploadId: input.uploadId } : {}),
      },
    },
    existing,
  );
  // A random event id: two racing first acceptances carry different receipts and must conflict,
  // not be deduplicated into one silent success.
  const events = decision.events.map((e) => toNewEvent(e, newEventId(), metadataOf(input.ctx)));
  try {
    const { position } = await deps.eventStore.append(dataItemStream(id), events, 'no_stream');
    await deps.awaitProjection?.(position);
    return { kind: 'accepted', receipt };
  } catch (error) {
    if (!(error instanceof WrongExpectedRevision)) throw error;
    const winner = await loadDataItem(deps.eventStore, id);
    if (winner.status !== 'accepted') throw error;
    return { kind: 'exists', receipt: winner.receipt };
  }
}

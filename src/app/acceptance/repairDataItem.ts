import type { DataItemState } from '../../domain/dataItem/decider.js';
import { metadataOf, type RequestContext } from '../context.js';
import type { DataItemRepository } from './dataItems.js';
import type { ReceivedDataItem } from './receiveDataItem.js';

type Accepted = Extract<DataItemState, { status: 'accepted' }>;

export interface RepairDeps {
  items: DataItemRepository;
  awaitProjection?: (position: bigint) => Promise<unknown>;
  now: () => number;
}

/**
 * An item sent again whose stored bytes were found damaged: the new bytes, verified (so the same
 * signature, the same item) and of the accepted sha256 and size, replace the damaged blob, and
 * DataItemRepaired puts the item back in the bundle queue. Nothing is charged: it was paid for.
 * Whether the new bytes were kept; when not, the caller gives them up.
 */
export async function repairIfDamaged(
  received: ReceivedDataItem,
  state: Accepted,
  input: { uploadId?: string; ctx: RequestContext },
  deps: RepairDeps,
): Promise<boolean> {
  const { verified, sha256 } = received;
  if (!state.damaged || sha256 !== state.sha256 || verified.rawContentLength !== state.rawContentLength) return false;
  // the bytes first: once repaired, the bundler may read them at once
  await received.commit(state.blobKey);
  const data = {
    id: verified.id,
    sha256,
    size: verified.rawContentLength,
    ...(input.uploadId !== undefined ? { uploadId: input.uploadId } : {}),
    now: deps.now(),
  };
  const { position } = await deps.items.execute({ type: 'RecordRepair', data }, metadataOf(input.ctx));
  if (position !== undefined) await deps.awaitProjection?.(position);
  return true;
}

import { DataItemTooLarge, Forbidden, InsufficientBalance, InvalidDataItem } from '../../domain/errors.js';
import { itemBlobKey } from '../../domain/ids.js';
import { uploadPrefix } from '../../domain/upload/ids.js';
import { tileChunks, type Upload, type UploadState } from '../../domain/upload/state.js';
import { acceptDataItem, type AcceptOutcome } from '../acceptance/acceptDataItem.js';
import { metadataOf, type RequestContext } from '../context.js';
import { verifyStoredDataItem, type ReceivedDataItem } from '../acceptance/receiveDataItem.js';
import { assembleUpload, itemRules } from './assembleUpload.js';
import type { MultipartDeps } from './deps.js';

/** an upload whose finalization was requested and has not ended */
type Finalizing = Extract<Upload, { status: 'VALIDATING' | 'FINALIZING' }>;

/**
 * Takes an upload whose finalization was requested to its end: tiling check, the same streaming
 * verification as a single upload, then the same acceptance (price, reserve, record, settle).
 * Every step is recorded, and each can run again after a crash: a step already done decides nothing,
 * and an item already accepted comes back as `exists` with its receipt.
 */
export async function finalizeUpload(deps: MultipartDeps, uploadId: string, ctx: RequestContext): Promise<UploadState> {
  const meta = metadataOf(ctx);
  const { now } = deps;
  const upload = await deps.uploads.read(uploadId);
  if (upload?.status !== 'VALIDATING' && upload?.status !== 'FINALIZING') return upload;

  const end = async (command: Parameters<MultipartDeps['uploads']['execute']>[0], dropChunks: boolean) => {
    const { state, position } = await deps.uploads.execute(command, meta);
    if (dropChunks) await deps.blobStore.deletePrefix(uploadPrefix(uploadId));
    if (position !== undefined) await deps.awaitProjection?.(position);
    return state;
  };
  const invalid = (reason: string) => end({ type: 'MarkInvalid', data: { uploadId, reason, now: now() } }, true);

  const tiling = tileChunks(upload.chunks);
  if (!tiling.ok) {
    deps.prefix?.forget(uploadId);
    return invalid(tiling.reason);
  }

  let received: ReceivedDataItem;
  try {
    received = (await movedBeforeCrash(deps, upload, tiling.size)) ?? (await assembleUpload(deps, uploadId, tiling.ordered, tiling.size));
  } catch (error) {
    if (error instanceof InvalidDataItem || error instanceof DataItemTooLarge) return invalid(error.detail ?? error.code);
    throw error;
  }
  const dataItemId = received.verified.id;
  await deps.uploads.execute({ type: 'MarkValidated', data: { uploadId, dataItemId, size: tiling.size, now: now() } }, meta);

  try {
    const outcome = await acceptDataItem(received, { token: upload.token, paidBy: payersOf(upload), uploadId, ctx }, deps.accept);
    return end(
      {
        type: 'MarkFinalized',
        data: {
          uploadId,
          dataItemId,
          receipt: outcome.receipt,
          ...(existedBefore(outcome, uploadId) ? { existed: true } : {}),
          // answered beside the receipt, as a single upload answers them (taggedApprovals.ts)
          ...(outcome.approvals && Object.keys(outcome.approvals).length > 0 ? { approvals: outcome.approvals } : {}),
          now: now(),
        },
      },
      true,
    );
  } catch (error) {
    if (error instanceof InsufficientBalance) return end({ type: 'MarkUnderfunded', data: { uploadId, dataItemId, now: now() } }, false);
    // a blocked owner (found late: blocked since its header chunk, or nested in the item): it ends here,
    // nothing receipted is dropped, and it is not tried again at every resume; a sync finalize answers 403
    if (error instanceof Forbidden) await invalid(`forbidden: ${error.detail ?? error.code}`);
    throw error;
  }
}

/**
 * An upload held in one blob (one chunk; every chunk of an earlier version's upload) moves that blob
 * to the item's key when it is accepted. After a crash between that move and the acceptance, the bytes
 * are found under the item's own key (its id was recorded by MarkValidated) and verified there again.
 */
async function movedBeforeCrash(deps: MultipartDeps, upload: Finalizing, size: number): Promise<ReceivedDataItem | undefined> {
  const header = upload.chunks.get(0);
  if (!upload.dataItemId || !header || (await deps.blobStore.stat(header.blobKey))) return undefined;
  return verifyStoredDataItem(deps.blobStore, itemBlobKey(upload.dataItemId), size, itemRules(deps), deps.observeVerify, deps.hasher);
}

const payersOf = (upload: Finalizing) => upload.finalize.paidBy;

/** stored by another upload or a single upload; not this upload's own acceptance found again after a crash */
const existedBefore = (outcome: AcceptOutcome, uploadId: string) => outcome.kind === 'exists' && outcome.uploadId !== uploadId;

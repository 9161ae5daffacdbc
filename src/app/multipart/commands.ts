import { InsufficientBalance, InvalidChunkSize, InvalidDataItem, ServiceUnavailable, TooManyRequests, UploadNotFound } from '../../domain/errors.js';
import { clientKeyOf } from '../../domain/clientKey.js';
import { CHUNK_MAX, CHUNK_MIN, newUploadId } from '../../domain/upload/ids.js';
import type { Receipt } from '../../domain/receipt.js';
import type { Upload } from '../../domain/upload/state.js';
import type { UploadApprovals } from '../../domain/upload/events.js';
import { metadataOf, type RequestContext } from '../context.js';
import type { MultipartDeps } from './deps.js';
import type { Finalizer } from './finalizer.js';
import { ensureNotBlocked } from '../blocklist.js';

/** `approvals`: what the item's credit-sharing tags changed, answered beside the receipt */
export type FinalizeOutcome = { kind: 'finalized'; id: string; receipt: Receipt; existed: boolean; approvals?: UploadApprovals } | { kind: 'started' };

export async function createUpload(deps: MultipartDeps, input: { token: string; chunkSize?: string; ctx: RequestContext }) {
  let chunkSize: number | undefined;
  if (input.chunkSize !== undefined) {
    chunkSize = /^\d{1,10}$/.test(input.chunkSize) ? Number(input.chunkSize) : NaN;
    if (!(chunkSize >= CHUNK_MIN && chunkSize <= CHUNK_MAX)) throw new InvalidChunkSize(input.chunkSize);
  }
  const uploadId = newUploadId();
  admitNewUpload(deps, uploadId, input.ctx);
  const now = deps.now();
  let position: bigint | undefined;
  try {
    ({ position } = await deps.uploads.execute(
      { type: 'CreateUpload', data: { uploadId, token: input.token, ...(chunkSize ? { chunkSize } : {}), now } },
      metadataOf(input.ctx),
    ));
  } catch (error) {
    deps.tally?.forget(uploadId);
    throw error;
  }
  if (position !== undefined) await deps.awaitProjection?.(position);
  return { id: uploadId, min: CHUNK_MIN, max: CHUNK_MAX, ...(chunkSize ? { chunkSize } : {}) };
}

/**
 * A new upload is refused while its client holds the most open uploads it may (429; they end when
 * finalized or expired), and while the disk is below its floor (503: its chunks could not be stored).
 */
function admitNewUpload(deps: MultipartDeps, uploadId: string, ctx: RequestContext): void {
  if (deps.disk?.belowFloor()) throw new ServiceUnavailable(`free disk ${deps.disk.free()} bytes is below the floor of ${deps.disk.floorBytes}`);
  if (!deps.tally) return;
  const client = clientKeyOf(ctx.clientAddress);
  const max = deps.limits.maxOpenUploadsPerClient;
  const { uploads } = deps.tally.usage(client);
  if (max > 0 && uploads >= max) throw new TooManyRequests(`${client} holds ${uploads} open uploads`);
  deps.tally.expect(uploadId, client);
}

const finalized = (u: Upload): FinalizeOutcome | undefined =>
  u.status === 'FINALIZED'
    ? { kind: 'finalized', id: u.dataItemId, receipt: u.receipt, existed: u.existed === true, ...(u.approvals ? { approvals: u.approvals } : {}) }
    : undefined;

/**
 * Sync: records the request, runs the finalization and answers with its end (the status says what
 * failed). Async: records the request, starts the finalization and answers at once.
 */
export async function requestFinalize(
  deps: MultipartDeps,
  finalizer: Finalizer,
  input: { uploadId: string; mode: 'sync' | 'async'; paidBy: string[]; ctx: RequestContext },
): Promise<FinalizeOutcome> {
  const now = deps.now();
  if (deps.blocklist) {
    // a blocked owner or payer: refused before anything is recorded (a finalized upload answers as before)
    const upload = await deps.uploads.read(input.uploadId);
    if (upload && !finalized(upload)) ensureNotBlocked(deps.blocklist, { owner: await deps.ownerOf(upload), paidBy: input.paidBy });
  }
  const { state, position } = await deps.uploads.execute(
    { type: 'RequestFinalize', data: { uploadId: input.uploadId, mode: input.mode, paidBy: input.paidBy, now } },
    metadataOf(input.ctx),
  );
  if (!state) throw new UploadNotFound(input.uploadId);
  const done = finalized(state);
  if (done) return done;
  if (position !== undefined) await deps.awaitProjection?.(position);
  if (input.mode === 'async') {
    finalizer.trigger(input.uploadId, input.ctx);
    return { kind: 'started' };
  }
  const end = await finalizer.finalize(input.uploadId, input.ctx);
  if (!end || end.status === 'EXPIRED') throw new UploadNotFound(input.uploadId);
  if (end.status === 'INVALID') throw new InvalidDataItem(`upload ${input.uploadId} is invalid`);
  if (end.status === 'UNDERFUNDED') throw new InsufficientBalance(`upload ${input.uploadId} is underfunded`);
  const result = finalized(end);
  if (!result) throw new Error(`upload ${input.uploadId} ended ${end.status}`);
  return result;
}

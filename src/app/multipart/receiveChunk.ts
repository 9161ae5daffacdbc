import { createHash } from 'node:crypto';
import { InsufficientBalance, InvalidChunk, UploadAlreadyFinalized, UploadNotFound } from '../../domain/errors.js';
import { chunkBlobKey, CHUNK_MAX } from '../../domain/upload/ids.js';
import { receivedEnd, type Upload } from '../../domain/upload/state.js';
import { metadataOf, type RequestContext } from '../context.js';
import { someoneCanPay } from '../payments.js';
import type { MultipartDeps } from './deps.js';
import { headerOf, MAX_HEADER_BYTES } from './headerOf.js';

const DECIMAL = /^\d{1,16}$/;

/** Parses the offset and length of a chunk request, or throws Invalid chunk (CONTRACT.md section 1). */
export function chunkBounds(offset: string, contentLength: string | undefined, maxDataItemSize: number) {
  if (!DECIMAL.test(offset)) throw new InvalidChunk(`offset ${offset}`);
  if (contentLength === undefined || !DECIMAL.test(contentLength)) throw new InvalidChunk('content-length required');
  const start = Number(offset);
  const length = Number(contentLength);
  if (length === 0 || length > CHUNK_MAX) throw new InvalidChunk(`chunk of ${length} bytes`);
  if (start + length > maxDataItemSize) throw new InvalidChunk(`chunk ends at ${start + length}`);
  return { offset: start, length };
}

/**
 * Stores one chunk (any order, in parallel) and records it. Once the owner is known from the header
 * chunk, a chunk that takes the upload past what anybody would pay for it is refused with 402.
 */
export async function receiveChunk(
  deps: MultipartDeps,
  input: { uploadId: string; offset: string; contentLength: string | undefined; body: AsyncIterable<Uint8Array>; paidBy: string[]; ctx: RequestContext },
): Promise<void> {
  const { offset, length } = chunkBounds(input.offset, input.contentLength, deps.maxDataItemSize);
  const upload = await deps.uploads.read(input.uploadId);
  if (!upload || upload.status === 'EXPIRED') throw new UploadNotFound(input.uploadId);
  if (upload.status !== 'ASSEMBLING') throw new UploadAlreadyFinalized(input.uploadId);

  const writer = await deps.blobStore.createWriter();
  const digest = createHash('sha256');
  const head: Uint8Array[] = [];
  let headBytes = 0;
  try {
    for await (const chunk of input.body) {
      if (writer.bytesWritten + chunk.length > length) throw new InvalidChunk('more bytes than content-length');
      digest.update(chunk);
      await writer.write(chunk);
      if (offset === 0 && headBytes < MAX_HEADER_BYTES) {
        head.push(chunk);
        headBytes += chunk.length;
      }
    }
    if (writer.bytesWritten !== length) throw new InvalidChunk(`${writer.bytesWritten} of ${length} bytes`);
    const owner = offset === 0 ? headerOf(Buffer.concat(head))?.nativeAddress : await deps.ownerOf(upload);
    if (owner) await ensurePayable(deps, upload, owner, Math.max(receivedEnd(upload), offset + length), input.paidBy);
    const sha256 = digest.digest('hex');
    const blobKey = chunkBlobKey(input.uploadId, offset, sha256);
    await writer.commit(blobKey);
    const now = (deps.now ?? Date.now)();
    const { position } = await deps.uploads.execute(
      { type: 'ReceiveChunk', data: { uploadId: input.uploadId, offset, length, sha256, blobKey, now } },
      metadataOf(input.ctx),
    );
    if (position !== undefined) await deps.awaitProjection?.(position);
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

async function ensurePayable(deps: MultipartDeps, upload: Upload, owner: string, end: number, paidBy: string[]) {
  const winc = await deps.pricing.priceOf(end);
  if (winc === 0n) return;
  const now = (deps.now ?? Date.now)();
  if (!(await someoneCanPay(deps.accounts, { owner, paidBy: [...paidBy, ...(upload.finalize?.paidBy ?? [])], winc, now }))) {
    throw new InsufficientBalance(`nobody pays ${winc} winc for ${owner} (upload ${upload.uploadId})`);
  }
}

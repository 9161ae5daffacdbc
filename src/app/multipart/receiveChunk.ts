import { createHash } from 'node:crypto';
import { InsufficientBalance, InvalidChunk, UploadAlreadyFinalized, UploadNotFound } from '../../domain/errors.js';
import { uploadDataKey, CHUNK_MAX } from '../../domain/upload/ids.js';
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
 * Writes one chunk at its offset of the upload's blob (any order, in parallel) and records it once
 * durable. Once the owner is known from the header chunk, a chunk that takes the upload past what
 * anybody would pay for it is refused with 402.
 */
export async function receiveChunk(
  deps: MultipartDeps,
  input: { uploadId: string; offset: string; contentLength: string | undefined; body: AsyncIterable<Uint8Array>; paidBy: string[]; ctx: RequestContext },
): Promise<void> {
  const { offset, length } = chunkBounds(input.offset, input.contentLength, deps.maxDataItemSize);
  const upload = await deps.uploads.read(input.uploadId);
  if (!upload || upload.status === 'EXPIRED') throw new UploadNotFound(input.uploadId);
  if (upload.status !== 'ASSEMBLING') throw new UploadAlreadyFinalized(input.uploadId);

  // An owner known from the header chunk is checked before a byte is written; the header chunk
  // itself is checked once its bytes are in (and stays unrecorded if refused).
  const end = Math.max(receivedEnd(upload), offset + length);
  const knownOwner = offset === 0 ? undefined : await deps.ownerOf(upload);
  if (knownOwner) await ensurePayable(deps, upload, knownOwner, end, input.paidBy);

  const digest = createHash('sha256');
  const head: Uint8Array[] = [];
  let received = 0;
  async function* counted() {
    for await (const chunk of input.body) {
      received += chunk.length;
      if (received > length) throw new InvalidChunk('more bytes than content-length');
      digest.update(chunk);
      if (offset === 0 && received - chunk.length < MAX_HEADER_BYTES) head.push(chunk);
      yield chunk;
    }
  }
  const blobKey = uploadDataKey(input.uploadId);
  await deps.blobStore.writeAt(blobKey, offset, counted());
  if (received !== length) throw new InvalidChunk(`${received} of ${length} bytes`);

  const headerOwner = offset === 0 ? headerOf(Buffer.concat(head))?.nativeAddress : undefined;
  if (headerOwner) await ensurePayable(deps, upload, headerOwner, end, input.paidBy);
  const now = (deps.now ?? Date.now)();
  const { position } = await deps.uploads.execute(
    { type: 'ReceiveChunk', data: { uploadId: input.uploadId, offset, length, sha256: digest.digest('hex'), blobKey, now } },
    metadataOf(input.ctx),
  );
  if (position !== undefined) await deps.awaitProjection?.(position);
}

async function ensurePayable(deps: MultipartDeps, upload: Upload, owner: string, end: number, paidBy: string[]) {
  const winc = await deps.pricing.priceOf(end);
  if (winc === 0n) return;
  const now = (deps.now ?? Date.now)();
  if (!(await someoneCanPay(deps.accounts, { owner, paidBy, winc, now }))) {
    throw new InsufficientBalance(`nobody pays ${winc} winc for ${owner} (upload ${upload.uploadId})`);
  }
}

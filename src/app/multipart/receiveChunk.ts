import { InsufficientBalance, InvalidChunk, UploadAlreadyFinalized, UploadNotFound } from '../../domain/errors.js';
import { CHUNK_MAX, legacyUploadDataKey, newChunkKey } from '../../domain/upload/ids.js';
import { chunkRefusal, type Upload } from '../../domain/upload/state.js';
import { metadataOf, type RequestContext } from '../context.js';
import { someoneCanPay } from '../accounts/payments.js';
import { acceptanceUnderWay } from '../acceptance/racingAcceptance.js';
import type { MultipartDeps } from './deps.js';
import { headerOfChunk } from './uploadOwner.js';
import { headerOf, MAX_HEADER_BYTES } from '../../verify/index.js';
import { clientKeyOf } from '../../domain/clientKey.js';
import { ensureNotBlocked } from '../blocklist.js';
import { bestEffort } from '../../bestEffort.js';
import { BlobNotFound, type BlobSlice } from '../../ports/blobStore.js';
import { sameBytes } from './sameBytes.js';

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
 * Writes one chunk into a blob of its own and records it once durable (any order, in parallel). The
 * blob is never written again: a request still sending when the upload is finalized, or another one
 * at the same offset, writes its own blob, which nothing recorded points at and which is deleted.
 *
 * Payment: once the owner is known from the header chunk, a chunk that takes the upload past what
 * anybody would pay for it is refused with 402. Until then an upload holds at most the free limit,
 * beyond which its bytes count against its client's allowance for uploads without a header.
 */
export async function receiveChunk(
  deps: MultipartDeps,
  input: { uploadId: string; offset: string; contentLength: string | undefined; body: AsyncIterable<Uint8Array>; paidBy: string[]; ctx: RequestContext },
): Promise<void> {
  const { offset, length } = chunkBounds(input.offset, input.contentLength, deps.maxDataItemSize);
  const upload = await deps.uploads.read(input.uploadId);
  if (!upload || upload.status === 'EXPIRED') throw new UploadNotFound(input.uploadId);
  if (upload.status !== 'ASSEMBLING') throw new UploadAlreadyFinalized(input.uploadId);
  const refusal = chunkRefusal(upload, offset, length, deps.limits.maxChunks);
  if (refusal) throw new InvalidChunk(`upload ${input.uploadId}: ${refusal}`);

  // An owner known from the header chunk is checked before a byte is written; the header chunk
  // itself is checked once its bytes are in (and stays unrecorded if refused).
  const end = Math.max(upload.furthestEnd, offset + length);
  const knownOwner = offset === 0 ? undefined : await deps.ownerOf(upload);
  // a blocked owner (known from the header chunk) or payer: refused before a byte is read
  ensureNotBlocked(deps.blocklist, { owner: knownOwner, paidBy: input.paidBy });
  if (knownOwner)
    await ensurePayable(deps, upload, knownOwner, end, input.paidBy, async () => {
      const header = upload.chunks.get(0);
      return header && (await headerOfChunk(deps.blobStore, header))?.id;
    });
  else if (offset !== 0) ensureHeaderlessAllowed(deps, upload, offset, length, input.ctx);

  // No hash of the chunk on its own: its bytes are hashed once, into the item's digests, as the
  // prefix verifier reads them back in order (or at finalize); a re-send is compared byte for byte.
  const head: Uint8Array[] = [];
  let received = 0;
  // the header chunk's owner, checked against the block list as soon as its header parses
  let ownerChecked = offset !== 0 || !deps.blocklist;
  async function* counted() {
    for await (const chunk of input.body) {
      received += chunk.length;
      if (received > length) throw new InvalidChunk('more bytes than content-length');
      if (offset === 0 && received - chunk.length < MAX_HEADER_BYTES) head.push(chunk);
      if (!ownerChecked) {
        const owner = headerOf(Buffer.concat(head));
        if (owner !== undefined || received >= MAX_HEADER_BYTES || received === length) ownerChecked = true;
        ensureNotBlocked(deps.blocklist, { owner });
      }
      yield chunk;
    }
  }
  const blobKey = newChunkKey(input.uploadId, offset);
  // from here on this request's blob is deleted unless the chunk is recorded with it
  let recorded = false;
  try {
    await deps.blobStore.put(blobKey, counted());
    if (received !== length) throw new InvalidChunk(`${received} of ${length} bytes`);
    const sameBytesAs = await resentAs(deps, upload, { key: blobKey, start: 0, length }, offset);

    const header = offset === 0 ? headerOf(Buffer.concat(head)) : undefined;
    const owner = header?.nativeAddress;
    if (owner) await ensurePayable(deps, upload, owner, end, input.paidBy, async () => header?.id);
    else if (offset === 0) ensureHeaderlessAllowed(deps, upload, offset, length, input.ctx);
    const now = deps.now();
    const { events, position } = await deps.uploads.execute(
      {
        type: 'ReceiveChunk',
        data: {
          uploadId: input.uploadId,
          offset,
          length,
          blobKey,
          ...(owner ? { owner } : {}),
          ...(sameBytesAs !== undefined ? { sameBytesAs } : {}),
          maxChunks: deps.limits.maxChunks,
          now,
        },
      },
      metadataOf(input.ctx),
    );
    const event = events[0];
    recorded = event !== undefined;
    if (recorded) deps.prefix?.recorded(input.uploadId, { offset, length, blobKey });
    // the chunk it replaced is in no recorded state any more (the blob of an earlier version's upload is shared by all its chunks)
    const replaced = event?.type === 'ChunkReceived' ? event.data.replaced?.blobKey : undefined;
    if (replaced && replaced !== legacyUploadDataKey(input.uploadId)) await deps.blobStore.delete(replaced);
    if (position !== undefined) await deps.awaitProjection?.(position);
  } finally {
    // refused, failed, or the same bytes as the chunk already recorded there
    if (!recorded) await bestEffort(deps.blobStore.delete(blobKey), 'an unrecorded blob is swept as an orphan');
  }
}

/**
 * The blob of the chunk recorded at `offset` when it holds the very bytes of `received` (a client's
 * retry): the decider then records nothing. Only a recorded chunk of the same length is read.
 */
async function resentAs(deps: MultipartDeps, upload: Upload, received: BlobSlice, offset: number): Promise<string | undefined> {
  const before = upload.chunks.get(offset);
  if (!before || before.length !== received.length) return undefined;
  // an earlier version's upload held every chunk in one blob, at its offset
  const start = before.blobKey === legacyUploadDataKey(upload.uploadId) ? offset : 0;
  try {
    return (await sameBytes(deps.blobStore, { key: before.blobKey, start, length: before.length }, received)) ? before.blobKey : undefined;
  } catch (error) {
    // its blob went with the upload's end (finalized, expired) meanwhile: the decider answers that
    if (BlobNotFound.is(error)) return undefined;
    throw error;
  }
}

/**
 * Refuses (402) a chunk that takes the upload past what anybody would pay for it, unless its item is
 * accepted already or being accepted by another upload: then its finalize answers with that
 * acceptance's receipt and charges nothing (a client uploading again an item it paid for once, by a
 * payer who can pay once), as a single upload of it is answered.
 */
async function ensurePayable(deps: MultipartDeps, upload: Upload, owner: string, end: number, paidBy: string[], itemId: () => Promise<string | undefined>) {
  const winc = await deps.pricing.priceOf(end);
  if (winc === 0n) return;
  const now = deps.now();
  if (await someoneCanPay(deps.accounts, { owner, paidBy, winc, now })) return;
  const dataItemId = await itemId();
  if (dataItemId !== undefined) {
    const loadItem = () => deps.accept.items.read(dataItemId);
    if (await acceptanceUnderWay({ accounts: deps.accounts, loadItem }, { owner, paidBy, dataItemId })) return;
  }
  throw new InsufficientBalance(`nobody pays ${winc} winc for ${owner} (upload ${upload.uploadId})`);
}

/**
 * No owner is known yet, so nobody is known to pay: an upload holds up to the free limit on its own;
 * bytes past it are taken only within its client's allowance, summed over all its uploads with no
 * header chunk (clients that send the header chunk last, as Irys' streaming uploader does, need one
 * item's worth; 0 allows none: then no byte past the free limit comes in before a paying header).
 */
function ensureHeaderlessAllowed(deps: MultipartDeps, upload: Upload, offset: number, length: number, ctx: RequestContext) {
  const free = deps.limits.freeUploadLimitBytes;
  const holding = upload.bytes - (upload.chunks.get(offset)?.length ?? 0) + length;
  const more = Math.max(0, holding - free) - Math.max(0, upload.bytes - free);
  if (more <= 0) return;
  const client = deps.tally?.clientOf(upload.uploadId) ?? clientKeyOf(ctx.clientAddress);
  const used = deps.tally?.usage(client).headerlessExcess ?? 0;
  if (used + more > deps.limits.headerlessBytesPerClient) {
    throw new InsufficientBalance(
      `upload ${upload.uploadId}: ${holding} bytes with no header chunk yet; ${client} holds ${used} bytes past the free limit of such uploads, of ${deps.limits.headerlessBytesPerClient}`,
    );
  }
}

import { Map as PersistentMap } from 'immutable';
import { match } from 'ts-pattern';
import type { Receipt } from '../receipt.js';
import type { UploadApprovals, UploadEvent } from './events.js';
import { CHUNK_MIN, legacyUploadDataKey } from './ids.js';

export type UploadStatus = 'ASSEMBLING' | 'VALIDATING' | 'FINALIZING' | 'FINALIZED' | 'INVALID' | 'UNDERFUNDED' | 'EXPIRED';

export interface Chunk {
  offset: number;
  length: number;
  /** recorded by earlier versions only (ChunkReceived) */
  sha256?: string;
  /** the chunk's own blob (bytes at 0), or for uploads of earlier versions the upload's one blob (bytes at `offset`) */
  blobKey: string;
}

/**
 * The chunks of an upload by offset, in a persistent map: recording a chunk shares the rest of the map
 * with the state before, so a chunk costs the same whether the upload holds ten chunks or ten thousand.
 */
export type Chunks = PersistentMap<number, Chunk>;
export const noChunks: Chunks = PersistentMap<number, Chunk>();

interface UploadBase {
  uploadId: string;
  token: string;
  chunkSize?: number;
  createdAt: number;
  /** time of the last status change */
  statusChangedAt: number;
  chunks: Chunks;
  /** bytes held by the chunks recorded now (a replaced chunk no longer counts) */
  bytes: number;
  /** the furthest byte any chunk reached (not lowered when a chunk is replaced by a shorter one) */
  furthestEnd: number;
  /** the largest offset of a chunk (chunks are replaced, never removed, so this is exact); -1 without chunks */
  lastOffset: number;
  /** offset of the one chunk shorter than CHUNK_MIN, which can only be the last of the item */
  shortChunkAt?: number;
  /** the owner's native address, from the header in the chunk at offset 0 (absent until one parses) */
  owner?: string;
  /** time of the last chunk recorded, or of the creation */
  activeAt: number;
}

/** how the finalization was asked for: answered at once or at its end, and who pays */
export interface FinalizeRequest {
  mode: 'sync' | 'async';
  paidBy: string[];
}

/**
 * An upload in each state has what that state implies, so code that holds a finalizing upload has
 * its request and its item without assertions: assembling, nothing of a finalization; validating,
 * the request (and the item of an earlier try that ended underfunded); finalizing, the request and
 * the item its bytes verified as; finalized, the item and its receipt; underfunded, the item;
 * invalid and expired, whatever they had.
 */
export type Upload =
  | (UploadBase & { status: 'ASSEMBLING' })
  | (UploadBase & { status: 'VALIDATING'; finalize: FinalizeRequest; dataItemId?: string })
  | (UploadBase & { status: 'FINALIZING'; finalize: FinalizeRequest; dataItemId: string })
  | (UploadBase & {
      status: 'FINALIZED';
      finalize?: FinalizeRequest;
      dataItemId: string;
      receipt: Receipt;
      /** the item had already been stored by another upload when this one was finalized */
      existed?: boolean;
      /** what the item's credit-sharing tags changed, as answered then */
      approvals?: UploadApprovals;
    })
  | (UploadBase & { status: 'UNDERFUNDED'; finalize?: FinalizeRequest; dataItemId: string })
  | (UploadBase & { status: 'INVALID' | 'EXPIRED'; finalize?: FinalizeRequest; dataItemId?: string });

export type UploadState = Upload | undefined;

export const evolveUpload = (state: UploadState, event: UploadEvent): UploadState => {
  if (event.type === 'UploadCreated') {
    const { uploadId, token, chunkSize, timestamp } = event.data;
    return {
      uploadId,
      token,
      ...(chunkSize ? { chunkSize } : {}),
      createdAt: timestamp,
      status: 'ASSEMBLING',
      statusChangedAt: timestamp,
      chunks: noChunks,
      bytes: 0,
      furthestEnd: 0,
      lastOffset: -1,
      activeAt: timestamp,
    };
  }
  if (!state) return state;
  return (
    match(event)
      .returnType<Upload>()
      .with({ type: 'ChunkReceived' }, ({ data }) => withChunk(state, data))
      .with({ type: 'UploadFinalizeRequested' }, ({ data }) => ({
        ...state,
        status: 'VALIDATING',
        statusChangedAt: data.timestamp,
        finalize: { mode: data.mode, paidBy: data.paidBy },
      }))
      // recorded on a validating upload only (the decider): on anything else it would change nothing
      .with({ type: 'UploadValidated' }, ({ data }) =>
        state.status === 'VALIDATING' ? { ...state, status: 'FINALIZING', statusChangedAt: data.timestamp, dataItemId: data.dataItemId } : state,
      )
      .with({ type: 'UploadFinalized' }, ({ data }) => ({
        ...state,
        status: 'FINALIZED',
        statusChangedAt: data.timestamp,
        dataItemId: data.dataItemId,
        receipt: data.receipt,
        ...(data.existed ? { existed: true } : {}),
        ...(data.approvals ? { approvals: data.approvals } : {}),
      }))
      .with({ type: 'UploadInvalid' }, ({ data }) => ({ ...state, status: 'INVALID', statusChangedAt: data.timestamp }))
      .with({ type: 'UploadUnderfunded' }, ({ data }) => ({ ...state, status: 'UNDERFUNDED', statusChangedAt: data.timestamp, dataItemId: data.dataItemId }))
      .with({ type: 'UploadExpired' }, ({ data }) => ({ ...state, status: 'EXPIRED', statusChangedAt: data.timestamp }))
      .exhaustive()
  );
};

function withChunk(state: Upload, data: Extract<UploadEvent, { type: 'ChunkReceived' }>['data']): Upload {
  const { offset, length, sha256, blobKey } = data;
  const previous = state.chunks.get(offset);
  const { shortChunkAt: _short, owner: _owner, ...rest } = state;
  const shortChunkAt = length < CHUNK_MIN ? offset : state.shortChunkAt === offset ? undefined : state.shortChunkAt;
  // the header chunk replaced by one whose header does not parse: the owner is unknown again
  const owner = offset === 0 ? data.owner : state.owner;
  return {
    ...rest,
    chunks: state.chunks.set(offset, { offset, length, blobKey, ...(sha256 !== undefined ? { sha256 } : {}) }),
    bytes: state.bytes + length - (previous?.length ?? 0),
    furthestEnd: Math.max(state.furthestEnd, offset + length),
    lastOffset: Math.max(state.lastOffset, offset),
    activeAt: data.timestamp,
    ...(shortChunkAt !== undefined ? { shortChunkAt } : {}),
    ...(owner !== undefined ? { owner } : {}),
  };
}

/**
 * Whether a recorded header chunk made the owner known. Uploads of earlier versions recorded no owner
 * (it was read from their one blob when needed): their header chunks are taken as naming one.
 */
export const headerChunkNamesOwner = (chunk: { uploadId: string; owner?: string | undefined; blobKey: string }): boolean =>
  chunk.owner !== undefined || chunk.blobKey === legacyUploadDataKey(chunk.uploadId);

/** the owner is known from the header chunk (uploads of earlier versions: a header chunk is there) */
export const ownerKnown = (upload: Upload): boolean => {
  const header = upload.chunks.get(0);
  return header !== undefined && headerChunkNamesOwner({ uploadId: upload.uploadId, owner: upload.owner, blobKey: header.blobKey });
};

/** How long an upload may stay unfinished (docs/configuration.md). */
export interface UploadLifetimes {
  /** an upload not finalized within this of its creation expires */
  lifetimeMs: number;
  /** an upload whose owner no header chunk has named expires this long after its last chunk (or its creation) */
  headerlessLifetimeMs: number;
}

/**
 * Whether an upload still assembling (or underfunded) is past its lifetime at `now`. Nobody is known
 * to pay for an upload with no header chunk: its bytes are a free loan of disk, so its lifetime is short.
 */
export function pastLifetime(
  upload: { status: UploadStatus; createdAt: number; activeAt: number; owned: boolean },
  now: number,
  lifetimes: UploadLifetimes,
): boolean {
  if (upload.status !== 'ASSEMBLING' && upload.status !== 'UNDERFUNDED') return false;
  return upload.createdAt <= now - lifetimes.lifetimeMs || (!upload.owned && upload.activeAt <= now - lifetimes.headerlessLifetimeMs);
}

/**
 * Why a chunk of `length` bytes at `offset` cannot be taken by this upload, or undefined when it can:
 * at most `maxChunks` chunks; every chunk but the item's last is at least CHUNK_MIN bytes (so at most
 * one shorter chunk, and no chunk after it). Checked before the chunk's bytes are read and again when
 * it is recorded (chunks of one upload race).
 */
export function chunkRefusal(upload: Upload, offset: number, length: number, maxChunks: number): string | undefined {
  const replacing = upload.chunks.has(offset);
  if (!replacing && upload.chunks.size >= maxChunks) return `more than ${maxChunks} chunks`;
  const short = upload.shortChunkAt;
  if (length < CHUNK_MIN) {
    if (short !== undefined && short !== offset) return `a second chunk shorter than ${CHUNK_MIN} bytes (the first at ${short})`;
    if (upload.lastOffset > offset) return `a chunk of ${length} bytes at ${offset} is not the last`;
  } else if (short !== undefined && short !== offset && offset > short) {
    return `a chunk at ${offset} after the short last chunk at ${short}`;
  }
  return undefined;
}

/** The chunks must cover [0, size) exactly (no gap, no overlap), and all but the last be at least `minChunk` bytes. */
export type Tiling = { ok: true; size: number; ordered: Chunk[] } | { ok: false; reason: string };

export function tileChunks(chunks: Chunks, minChunk = CHUNK_MIN): Tiling {
  const ordered = [...chunks.values()].sort((a, b) => a.offset - b.offset);
  if (ordered.length === 0) return { ok: false, reason: 'no chunks' };
  let end = 0;
  for (const [i, c] of ordered.entries()) {
    // never recorded (the HTTP layer and the event schema refuse them), but an empty chunk would
    // otherwise pass as a tiling of nothing: an upload of zero bytes
    if (!(c.length > 0)) return { ok: false, reason: `empty chunk at ${c.offset}` };
    if (c.offset > end) return { ok: false, reason: `gap at ${end}` };
    if (c.offset < end) return { ok: false, reason: `overlap at ${c.offset}` };
    if (c.length < minChunk && i < ordered.length - 1) return { ok: false, reason: `a chunk of ${c.length} bytes at ${c.offset} before the last` };
    end = c.offset + c.length;
  }
  return { ok: true, size: end, ordered };
}

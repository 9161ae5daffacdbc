import type { Readable } from 'node:stream';
import { ITEM_BLOB_PREFIX, itemBlobKey, type DataItemId } from '../domain/ids.js';
import { BlobNotFound, type BlobStore, type ByteRange, type OpenBlob } from '../ports/blobStore.js';
import type { ReadStore } from '../ports/readStore.js';
import { headerOf, MAX_HEADER_BYTES } from '../verify/headerOf.js';
import type { VerifiedHeader } from '../verify/types.js';
import { collectionOf } from '../../projections/definition.js';
import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { nestedOffsetsProjection, type NestedOffsetsDocument } from '../../projections/nestedOffsets.js';
import type { RetiredReads } from './retiredBytes.js';

/**
 * Where an accepted item's bytes are in the blob store: its own blob from its receipt on, or, for an
 * item nested in an uploaded bundle, its root item's blob at its offset there (the nested index).
 */
export interface ItemPlace {
  blobKey: string;
  /** the item's first byte in that blob */
  itemStart: number;
  rawContentLength: number;
  payloadDataStart: number;
  payloadContentLength: number;
  /** its Content-Type tag as recorded at acceptance (application/octet-stream when none) */
  payloadContentType: string;
}

/**
 * A payload's bytes to send: the blob open for reads of bytes `start` to `end` (inclusive, in the
 * blob) into the sender's own buffers where the store offers that, else a stream of them.
 */
export type PayloadBytes = { kind: 'blob'; blob: OpenBlob; start: number; end: number } | { kind: 'stream'; stream: Readable };

export interface ItemDataQueries {
  /** undefined for an id never accepted (nor indexed as nested), and for an item whose stored bytes are damaged */
  itemPlace(id: DataItemId): Promise<ItemPlace | undefined>;
  /**
   * The payload's bytes `range` (inclusive, relative to the payload; the whole payload without
   * one), read from the blob store as they are sent; undefined when the blob is gone.
   */
  readPayload(place: ItemPlace, range?: ByteRange): Promise<PayloadBytes | undefined>;
  /** the item's ANS-104 header, read from its first bytes; undefined when the blob is gone */
  header(place: ItemPlace): Promise<VerifiedHeader | undefined>;
}

/**
 * `retired`: where the bytes of items retired after permanence are read (the gateway); absent, such
 * an item's blob being gone, its bytes are not found. A blob is looked for first, the retirement only
 * once it is gone: a read under way when the retention pass deletes it finds the retirement, which
 * the pass waited to see projected before the deletion.
 */
export function createItemDataQueries(deps: { readStore: ReadStore; blobStore: Pick<BlobStore, 'read' | 'open'>; retired?: RetiredReads }): ItemDataQueries {
  const { readStore, blobStore } = deps;
  /** the bytes of a blob gone, from the gateway when its item was retired */
  const fromGateway = async (blobKey: string, slice: ByteRange): Promise<Readable | undefined> => {
    const retired = deps.retired && (await deps.retired.retiredOf(blobKey.slice(ITEM_BLOB_PREFIX.length)));
    return retired && deps.retired!.read(retired, slice);
  };
  const statusOf = async (id: string) => (await readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))?.doc;

  const readBlob = async (key: string, range: ByteRange): Promise<Readable | undefined> => {
    try {
      return await blobStore.read(key, range);
    } catch (error) {
      if (BlobNotFound.is(error)) return undefined;
      throw error;
    }
  };

  const openBlob = async (open: NonNullable<BlobStore['open']>, key: string, range: ByteRange): Promise<PayloadBytes | undefined> => {
    let blob;
    try {
      blob = await open(key);
    } catch (error) {
      if (BlobNotFound.is(error)) return undefined;
      throw error;
    }
    // as a stream read of these bytes would: a blob shorter than its item is a failure, not a short answer
    if (range.end >= blob.size) {
      await blob.close();
      throw new RangeError(`byte range ${range.start}-${range.end} is outside a blob of ${blob.size} bytes`);
    }
    return { kind: 'blob', blob, ...range };
  };

  return {
    async itemPlace(id) {
      const own = await statusOf(id);
      if (own) {
        if (own.damaged) return undefined;
        const { rawContentLength, payloadDataStart, payloadContentLength, payloadContentType } = own;
        return { blobKey: itemBlobKey(id), itemStart: 0, rawContentLength, payloadDataStart, payloadContentLength, payloadContentType };
      }
      const nested = (await readStore.get<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), id))?.doc;
      if (!nested) return undefined;
      const root = await statusOf(nested.rootId);
      if (!root || root.damaged) return undefined;
      return {
        blobKey: itemBlobKey(nested.rootId),
        itemStart: nested.offsetInRootItem,
        rawContentLength: nested.rawContentLength,
        payloadDataStart: nested.payloadDataStart,
        payloadContentLength: nested.rawContentLength - nested.payloadDataStart,
        payloadContentType: nested.payloadContentType,
      };
    },

    async readPayload(place, range) {
      const first = place.itemStart + place.payloadDataStart;
      const { start, end } = range ?? { start: 0, end: place.payloadContentLength - 1 };
      const inBlob = { start: first + start, end: first + end };
      if (blobStore.open) {
        const opened = await openBlob(blobStore.open.bind(blobStore), place.blobKey, inBlob);
        if (opened) return opened;
      } else {
        const stream = await readBlob(place.blobKey, inBlob);
        if (stream) return { kind: 'stream', stream };
      }
      const remote = await fromGateway(place.blobKey, inBlob);
      return remote && { kind: 'stream', stream: remote };
    },

    async header(place) {
      const end = place.itemStart + Math.min(place.rawContentLength, MAX_HEADER_BYTES) - 1;
      const slice = { start: place.itemStart, end };
      const stream = (await readBlob(place.blobKey, slice)) ?? (await fromGateway(place.blobKey, slice));
      if (!stream) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return headerOf(Buffer.concat(chunks));
    },
  };
}

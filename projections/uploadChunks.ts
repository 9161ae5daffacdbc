import type { UploadEvent } from '../src/domain/upload/events.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { collectionOf, type HandledEvent, type ProjectionDefinition } from './definition.js';

/**
 * The chunks of every multi-part upload, one document each, so recording a chunk writes one small
 * document whatever the upload holds. Ids sort by upload, then by offset (zero-padded), so an
 * upload's chunks are one ascending range of a scan.
 */
export interface UploadChunkDocument {
  offset: number;
  length: number;
}

const handles = ['ChunkReceived'] as const;
type ChunkReceived = HandledEvent<typeof handles>;

const OFFSET_DIGITS = 16;
export const uploadChunkId = (uploadId: string, offset: number) => `${uploadId}/${String(offset).padStart(OFFSET_DIGITS, '0')}`;

export const uploadChunksProjection: ProjectionDefinition<UploadChunkDocument, ChunkReceived> = {
  name: 'upload-chunks',
  version: 1,
  handles,
  documentIds: (event) => [uploadChunkId(event.data.uploadId, event.data.offset)],
  // the same offset again replaces the chunk
  reduce: (_doc, event) => ({ offset: event.data.offset, length: event.data.length }),
};

/** An upload's chunks as `[offset, length]`, ascending by offset, read a page at a time. */
export async function chunksOfUpload(readStore: Pick<ReadStore, 'scan'>, uploadId: string, pageSize = 1000): Promise<[number, number][]> {
  const collection = collectionOf(uploadChunksProjection);
  const prefix = `${uploadId}/`;
  const chunks: [number, number][] = [];
  let afterId = prefix;
  for (;;) {
    const page = await readStore.scan<UploadChunkDocument>(collection, { afterId, limit: pageSize });
    for (const { id, doc } of page) {
      if (!id.startsWith(prefix)) return chunks;
      chunks.push([doc.offset, doc.length]);
    }
    if (page.length < pageSize) return chunks;
    afterId = page[page.length - 1]!.id;
  }
}

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { DocumentWrite, ReadStore } from '../../src/ports/readStore.js';
import type { UploadEvent } from '../../src/domain/upload/events.js';
import { streamName } from '../../src/ports/eventStore.js';
import { projectBatch, type ProjectionTarget } from '../../projections/projectBatch.js';
import {
  allProjections,
  checkpointOf,
  chunksOfUpload,
  collectionOf,
  unfinishedUploadsProjection,
  uploadChunkId,
  type UnfinishedUpload,
} from '../../projections/index.js';
import { sqliteStoresEach } from './readModels.js';

const UPLOAD = 'u'.repeat(24);
const sha = (n: number) => createHash('sha256').update(String(n)).digest('hex');

let position = 0n;
function recorded(event: UploadEvent, clientAddress?: string): RecordedEvent {
  position += 1n;
  return {
    id: `e${position}`,
    type: event.type,
    data: event.data,
    metadata: { correlationId: 't', schemaVersion: 1, ...(clientAddress ? { clientAddress } : {}) },
    streamName: streamName(`upload-${event.data.uploadId}`),
    revision: position,
    position,
    created: 1,
  };
}
const created = (uploadId = UPLOAD) => recorded({ type: 'UploadCreated', data: { uploadId, token: 'arweave', timestamp: 1 } }, '192.0.2.7');
const chunk = (offset: number, length = 2500, extra: Partial<Extract<UploadEvent, { type: 'ChunkReceived' }>['data']> = {}, uploadId = UPLOAD) =>
  recorded({
    type: 'ChunkReceived',
    data: { uploadId, offset, length, sha256: sha(offset), blobKey: `uploads/${uploadId}/${offset}_x`, timestamp: 2 + offset, ...extra },
  });

describe('multi-part upload read models', () => {
  const stores = sqliteStoresEach('upload-projections-');
  const projections = allProjections.filter((p) => p.handles.some((type) => type.startsWith('Upload') || type === 'ChunkReceived'));
  let targets: ProjectionTarget[];
  let committed: DocumentWrite[][];
  let reads: ReadStore;
  beforeEach(() => {
    targets = projections.map((projection) => ({ projection, collection: collectionOf(projection), checkpoint: checkpointOf(projection), after: undefined }));
    committed = [];
    reads = Object.assign(Object.create(null), {
      getMany: (collection: string, ids: readonly string[]) => stores.reads.getMany(collection, ids),
      commit: (writes: readonly DocumentWrite[], checkpoints: Parameters<ReadStore['commit']>[1]) => {
        committed.push([...writes]);
        return stores.reads.commit(writes, checkpoints);
      },
    }) as ReadStore;
  });

  async function project(batch: RecordedEvent[]) {
    const last = await projectBatch(reads, targets, batch);
    for (const t of targets) t.after = last;
  }

  it('writes the same few small documents for a chunk whether its upload holds one chunk or 5000', async () => {
    await project([created(), ...Array.from({ length: 5000 }, (_, i) => chunk(i * 2500))]);
    await project([chunk(5000 * 2500)]);
    const writes = committed.at(-1)!;
    expect(writes.map((w) => `${w.collection} ${w.id}`).sort()).to.deep.equal([
      `unfinished-uploads_v2 ${UPLOAD}`,
      `upload-chunks_v1 ${uploadChunkId(UPLOAD, 5000 * 2500)}`,
      `upload-history_v1 ${UPLOAD}`,
    ]);
    for (const w of writes) expect(JSON.stringify(w.doc).length, w.collection).to.be.below(600);
  });

  it("lists an upload's chunks ascending by offset, a page at a time, one per offset, and no other upload's", async () => {
    const other = 'v'.repeat(24);
    await project([created(), created(other), chunk(10_000), chunk(0), chunk(2500, 2500, {}, other), chunk(5000), chunk(0, 3000), chunk(7500)]);
    expect(await chunksOfUpload(stores.reads, UPLOAD, 2)).to.deep.equal([
      [0, 3000],
      [5000, 2500],
      [7500, 2500],
      [10_000, 2500],
    ]);
    expect(await chunksOfUpload(stores.reads, other, 2)).to.deep.equal([[2500, 2500]]);
  });

  it('keeps for each unfinished upload its client, the bytes it holds (a replaced chunk counted once) and whether a header named its owner', async () => {
    await project([created(), chunk(2500), chunk(0, 2600), chunk(2500, 3000, { replaced: { length: 2500, blobKey: 'k' } })]);
    const doc = (await stores.reads.get<UnfinishedUpload>(collectionOf(unfinishedUploadsProjection), UPLOAD))!.doc;
    expect(doc).to.deep.equal({ status: 'ASSEMBLING', createdAt: 1, client: '192.0.2.7', bytes: 5600, activeAt: 2502 });
    await project([chunk(0, 2600, { owner: '0xowner', replaced: { length: 2600, blobKey: 'k' } })]);
    const owned = (await stores.reads.get<UnfinishedUpload>(collectionOf(unfinishedUploadsProjection), UPLOAD))!.doc;
    expect(owned).to.deep.equal({ status: 'ASSEMBLING', createdAt: 1, client: '192.0.2.7', bytes: 5600, owned: true, activeAt: 2 });
  });
});

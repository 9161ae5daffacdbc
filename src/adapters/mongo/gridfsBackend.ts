import {
  GridFSBucket,
  ObjectId,
  type Collection,
  type Db,
  type GridFSBucketOptions,
  type GridFSChunk,
  type MongoClient,
  type WriteConcernSettings,
} from 'mongodb';
import type { BlobBackend, BlobPointer } from '../layered/blobBackend.js';
import type { Cut, Layer } from '../layered/blobPlan.js';
import { underPrefix } from './blobPrefix.js';
import { isDuplicateKey } from './errors.js';
import { GridFsLayerUpload } from './gridfsLayerUpload.js';
import { bestEffort } from '../../bestEffort.js';

/** `<bucket>.keys`: one pointer per key */
interface PointerRecord {
  _id: string;
  blob: ObjectId;
  seq: number;
  cuts: Cut[];
  /** when the key last changed (a part, a commit or move, a cut); absent on pointers written before it was kept */
  changedAt?: Date;
}

interface LayerMetadata {
  blob: ObjectId;
  seq: number;
  offset: number;
}

/** a GridFS files document as this store writes it */
interface LayerFile {
  _id: ObjectId;
  length: number;
  chunkSize: number;
  filename: string;
  uploadDate: Date;
  metadata?: LayerMetadata;
}

/** Never a valid key (keys cannot contain a dot), so no blob or prefix can collide with it. */
const TEMP_PREFIX = '.tmp/';
/** ids per `$in` of a deletion */
const DELETE_BATCH = 1000;

const layerName = (blob: string, seq: number) => `${blob}/${seq}`;

export interface GridFsBackendOptions {
  client: MongoClient;
  db: Db;
  bucketName: string;
  ownsClient: boolean;
  writeConcern: WriteConcernSettings;
  chunkSizeBytes?: number;
}

/**
 * Layout in the database: the GridFS bucket `<bucket>.files` / `<bucket>.chunks`, one file per layer
 * (named `<blob>/<seq>`, `.tmp/<blob>/<seq>` until a writer's commit, with `metadata: { blob, seq,
 * offset }`), and `<bucket>.keys`, one pointer `{ _id: key, blob, seq, cuts }` per key. Indexes are
 * created here, at open: the two GridFS ones (the same the driver would create), the layers of a
 * blob by offset, and the keys pointing at a blob.
 */
export async function openGridFsBackend(options: GridFsBackendOptions): Promise<BlobBackend> {
  const { db, bucketName, writeConcern } = options;
  const files = db.collection<LayerFile>(`${bucketName}.files`, { writeConcern });
  const chunks = db.collection<GridFSChunk>(`${bucketName}.chunks`, { writeConcern });
  const pointers = db.collection<PointerRecord>(`${bucketName}.keys`, { writeConcern });
  // the bucket spreads its options over its defaults: an undefined chunk size would replace 255 KiB
  const bucketOptions: GridFSBucketOptions = { bucketName, writeConcern };
  if (options.chunkSizeBytes !== undefined) bucketOptions.chunkSizeBytes = options.chunkSizeBytes;
  const bucket = new GridFSBucket(db, bucketOptions);
  // one operation first: an unreachable deployment then fails start-up with the server selection
  // error itself, not with the "topology closed" of the operations queued behind it
  await db.command({ ping: 1 });
  // one createIndexes per collection (two on a collection not created yet would race to create it)
  await Promise.all([
    files.createIndexes([{ key: { filename: 1, uploadDate: 1 } }, { key: { 'metadata.blob': 1, 'metadata.offset': 1 } }]),
    chunks.createIndexes([{ key: { files_id: 1, n: 1 }, unique: true }]),
    pointers.createIndexes([{ key: { blob: 1 } }]),
  ]);
  return new GridFsBackend(options.client, options.ownsClient, bucket, files, chunks, pointers);
}

class GridFsBackend implements BlobBackend {
  constructor(
    private readonly client: MongoClient,
    private readonly ownsClient: boolean,
    private readonly bucket: GridFSBucket,
    private readonly files: Collection<LayerFile>,
    private readonly chunks: Collection<GridFSChunk>,
    private readonly pointers: Collection<PointerRecord>,
  ) {}

  async pointer(key: string): Promise<BlobPointer | undefined> {
    const row = await this.pointers.findOne({ _id: key });
    return row ? pointerOf(row) : undefined;
  }

  async reserveLayer(key: string): Promise<{ blob: string; seq: number }> {
    // concurrent first parts of a key: one insert wins, the others update it (the server retries an
    // upsert on `_id` equality itself; the retry here is for servers or paths that do not)
    const row = await onceMoreOnDuplicateKey(() =>
      this.pointers.findOneAndUpdate(
        { _id: key },
        { $inc: { seq: 1 }, $set: { changedAt: new Date() }, $setOnInsert: { blob: new ObjectId(), cuts: [] } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    if (row === null) throw new Error(`no pointer after an upsert of ${key}`);
    return { blob: row.blob.toHexString(), seq: row.seq };
  }

  async replacePointer(key: string, pointer: BlobPointer): Promise<BlobPointer | undefined> {
    const row = await onceMoreOnDuplicateKey(() =>
      this.pointers.findOneAndReplace(
        { _id: key },
        { blob: new ObjectId(pointer.blob), seq: pointer.seq, cuts: pointer.cuts, changedAt: new Date() },
        { upsert: true, returnDocument: 'before' },
      ),
    );
    return row ? pointerOf(row) : undefined;
  }

  async removePointer(key: string, blob?: string): Promise<BlobPointer | undefined> {
    const row = await this.pointers.findOneAndDelete(blob === undefined ? { _id: key } : { _id: key, blob: new ObjectId(blob) });
    return row ? pointerOf(row) : undefined;
  }

  async appendCut(key: string, blob: string, size: number): Promise<number | undefined> {
    // one atomic update: the cut's number is the next of the blob's sequence (an update pipeline,
    // so the incremented number can be used in the same write)
    const row = await this.pointers.findOneAndUpdate(
      { _id: key, blob: new ObjectId(blob) },
      [
        { $set: { seq: { $add: ['$seq', 1] }, changedAt: '$$NOW' } },
        { $set: { cuts: { $concatArrays: [{ $ifNull: ['$cuts', []] }, [{ seq: '$seq', size: { $literal: size } }]] } } },
      ],
      { returnDocument: 'after' },
    );
    return row?.seq;
  }

  async *keysUnder(prefix: string): AsyncGenerator<{ key: string; blob: string; changedAt: number }> {
    const cursor = this.pointers.find({ _id: { $regex: underPrefix(prefix) } }, { projection: { blob: 1, changedAt: 1 } });
    // an older pointer: its blob's creation time (in its ObjectId) is the best known
    for await (const row of cursor) yield { key: row._id, blob: row.blob.toHexString(), changedAt: (row.changedAt ?? row.blob.getTimestamp()).getTime() };
  }

  async isReferenced(blob: string): Promise<boolean> {
    return (await this.pointers.findOne({ blob: new ObjectId(blob) }, { projection: { _id: 1 } })) !== null;
  }

  newBlobId(): string {
    return new ObjectId().toHexString();
  }

  createLayer(blob: string, seq: number, offset: number, temporary: boolean): GridFsLayerUpload {
    const name = (temporary ? TEMP_PREFIX : '') + layerName(blob, seq);
    const metadata: LayerMetadata = { blob: new ObjectId(blob), seq, offset };
    return new GridFsLayerUpload(this.bucket.openUploadStream(name, { metadata }), (ids) => this.deleteLayers(ids));
  }

  async layers(blob: string, offsets: { min?: number; max?: number } = {}): Promise<Layer[]> {
    const offset: { $gte?: number; $lte?: number } = {};
    if (offsets.min !== undefined) offset.$gte = offsets.min;
    if (offsets.max !== undefined) offset.$lte = offsets.max;
    const rows = await this.files
      .find(
        { 'metadata.blob': new ObjectId(blob), ...(Object.keys(offset).length > 0 ? { 'metadata.offset': offset } : {}) },
        { projection: { _id: 1, length: 1, metadata: 1 } },
      )
      .toArray();
    return rows.flatMap((row) => {
      const meta = row.metadata;
      if (meta === undefined || typeof meta.seq !== 'number' || typeof meta.offset !== 'number') return [];
      return [{ id: row._id.toHexString(), offset: meta.offset, length: row.length, seq: meta.seq }];
    });
  }

  async publishLayer(id: string, blob: string, seq: number): Promise<void> {
    await this.files.updateOne({ _id: new ObjectId(id) }, { $set: { filename: layerName(blob, seq) } });
  }

  async deleteLayers(ids: readonly string[]): Promise<void> {
    for (let at = 0; at < ids.length; at += DELETE_BATCH) {
      const batch = ids.slice(at, at + DELETE_BATCH).map((id) => new ObjectId(id));
      // the files documents first: a layer is gone from listings before its bytes are
      await this.files.deleteMany({ _id: { $in: batch } });
      await this.chunks.deleteMany({ files_id: { $in: batch } });
    }
  }

  async *readLayer(id: string, start: number, end: number): AsyncGenerator<Uint8Array> {
    if (end <= start) return;
    // Both bounds always given, `end` exclusive: the driver takes a missing `end` for 0 (and then
    // refuses any `start` past it) and an `end: undefined` for an error.
    const download = this.bucket.openDownloadStream(new ObjectId(id), { start, end });
    let complete = false;
    try {
      for await (const chunk of download) yield chunk as Uint8Array;
      complete = true;
    } finally {
      // a reader that stopped early: the chunk cursor is closed on the server too
      if (!complete) await bestEffort(download.abort(), 'the server times an idle cursor out');
    }
  }

  async *staleTemporaryLayers(before: Date): AsyncGenerator<{ id: string; blob: string; seq: number }> {
    const cursor = this.files.find(
      { filename: { $regex: underPrefix(TEMP_PREFIX.slice(0, -1)) }, uploadDate: { $lt: before } },
      { projection: { _id: 1, metadata: 1 } },
    );
    for await (const row of cursor) {
      const meta = row.metadata;
      if (meta === undefined || !(meta.blob instanceof ObjectId) || typeof meta.seq !== 'number') continue;
      yield { id: row._id.toHexString(), blob: meta.blob.toHexString(), seq: meta.seq };
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}

const pointerOf = (row: PointerRecord): BlobPointer => ({ blob: row.blob.toHexString(), seq: row.seq, cuts: row.cuts ?? [] });

async function onceMoreOnDuplicateKey<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return operation();
  }
}

import { finished } from 'node:stream/promises';
import type { GridFSBucketWriteStream } from 'mongodb';
import type { LayerUpload } from '../layered/blobBackend.js';
import { bestEffort } from '../../bestEffort.js';

/**
 * One GridFS upload stream as a layer. GridFS stores a file as chunk documents inserted as the bytes
 * come, then its files document last: the layer exists (is listed) only once complete. A write's
 * callback fires when its bytes are buffered or, if they filled a chunk, once that chunk is inserted,
 * so awaiting each write keeps at most one GridFS chunk (255 KiB by default) in memory and no insert
 * in flight when the upload is aborted.
 */
export class GridFsLayerUpload implements LayerUpload {
  constructor(
    private readonly stream: GridFSBucketWriteStream,
    /** deletes the files document and the chunks of the given layers */
    private readonly remove: (ids: readonly string[]) => Promise<void>,
  ) {
    // An 'error' event without a listener would crash the process; failures reach the caller through
    // the write callbacks and `finished` instead.
    stream.on('error', () => {});
  }

  get id(): string {
    return this.stream.id.toHexString();
  }

  write(chunk: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  }

  async finish(): Promise<number> {
    this.stream.end();
    await finished(this.stream);
    return this.stream.gridFSFile?.length ?? this.stream.length;
  }

  async abort(): Promise<void> {
    const { streamEnd, aborted } = this.stream.state;
    // stops the stream (no chunk inserted after this); it also deletes the chunks written so far
    if (!streamEnd && !aborted) await bestEffort(this.stream.abort(), 'the documents are deleted below either way');
    // a finished (or half-finished) upload has a files document too: both go
    await this.remove([this.id]);
  }
}

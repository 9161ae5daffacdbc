import type { ReadStore } from '../../ports/readStore.js';
import { uploadPrefix } from '../../domain/upload/ids.js';
import { collectionOf, unfinishedUploadsProjection, type UnfinishedUpload } from '../../../projections/index.js';
import { pastLifetime, type UploadLifetimes } from '../../domain/upload/state.js';
import type { MultipartDeps } from './deps.js';

/**
 * Ends uploads not finalized within their lifetime: records UploadExpired (the stream decides, so a
 * finalize that won the race is left alone) and deletes their chunks. An upload nobody is known to pay
 * for (no header chunk) has a short lifetime: its bytes are a free loan of disk.
 */
export async function expireUploads(deps: MultipartDeps, readStore: ReadStore, lifetimes: UploadLifetimes): Promise<number> {
  const now = deps.now();
  const collection = collectionOf(unfinishedUploadsProjection);
  let expired = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await readStore.scan<UnfinishedUpload>(collection, { ...(afterId ? { afterId } : {}), limit: 500 });
    for (const { id, doc } of page) {
      if (!pastLifetime({ ...doc, owned: doc.owned === true }, now, lifetimes)) continue;
      const { events } = await deps.uploads.execute({ type: 'Expire', data: { uploadId: id, lifetimes, now } }, { correlationId: 'expirer' });
      if (events.length > 0) {
        deps.prefix?.forget(id);
        await deps.blobStore.deletePrefix(uploadPrefix(id));
        expired++;
      }
    }
    if (page.length < 500) return expired;
    afterId = page[page.length - 1]!.id;
  }
}

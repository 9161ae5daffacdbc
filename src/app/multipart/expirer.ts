import type { ReadStore } from '../../ports/readStore.js';
import { uploadPrefix } from '../../domain/upload/ids.js';
import { collectionOf, unfinishedUploadsProjection, type UnfinishedUpload } from '../../../projections/index.js';
import { pastLifetime, type UploadLifetimes } from '../../domain/upload/state.js';
import type { StampAges } from '../../clock.js';
import type { MultipartDeps } from './deps.js';

/**
 * Ends uploads not finalized within their lifetime: records UploadExpired (the stream decides, so a
 * finalize that won the race is left alone) and deletes their chunks. An upload nobody is known to pay
 * for (no header chunk) has a short lifetime: its bytes are a free loan of disk.
 *
 * Ages come from `ages` (src/clock.ts): an upload's creation and last chunk are wall-clock stamps in
 * its events, but once this process has seen one, its age grows with the monotonic clock, so a step
 * of the wall clock while the service runs (a day forward) expires nothing. `ages` must live as long
 * as the process: a new one counts every stamp's age from the wall clock again.
 */
export async function expireUploads(deps: MultipartDeps, readStore: ReadStore, lifetimes: UploadLifetimes, ages: StampAges): Promise<number> {
  const collection = collectionOf(unfinishedUploadsProjection);
  let expired = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await readStore.scan<UnfinishedUpload>(collection, { ...(afterId ? { afterId } : {}), limit: 500 });
    for (const { id, doc } of page) {
      const at = expiryTime(id, { ...doc, owned: doc.owned === true }, lifetimes, ages);
      if (at === undefined) continue;
      const { events } = await deps.uploads.execute({ type: 'Expire', data: { uploadId: id, ...at } }, { correlationId: 'expirer' });
      if (events.length > 0) {
        deps.prefix?.forget(id);
        await deps.blobStore.deletePrefix(uploadPrefix(id));
        expired++;
      }
    }
    if (page.length < 500) break;
    afterId = page[page.length - 1]!.id;
  }
  ages.endPass();
  return expired;
}

/**
 * What the Expire command is given when the upload is past a lifetime by its ages, else undefined.
 * The stream decides again on its own stamps (a chunk since the scan keeps a headerless upload): it
 * is given the lifetime that ran out alone, and as `now` that stamp plus its age (the time in the
 * stamp's own frame), so it agrees with the ages rather than with a wall clock that may have stepped.
 */
function expiryTime(
  id: string,
  upload: { status: UnfinishedUpload['status']; createdAt: number; activeAt: number; owned: boolean },
  lifetimes: UploadLifetimes,
  ages: StampAges,
): { now: number; lifetimes: UploadLifetimes } | undefined {
  const createdAge = ages.ageOf(`${id} created`, upload.createdAt);
  const activeAge = ages.ageOf(`${id} active`, upload.activeAt);
  const byCreation = { lifetimeMs: lifetimes.lifetimeMs, headerlessLifetimeMs: Infinity };
  const byActivity = { lifetimeMs: Infinity, headerlessLifetimeMs: lifetimes.headerlessLifetimeMs };
  const createdNow = upload.createdAt + createdAge;
  if (pastLifetime(upload, createdNow, byCreation)) return { now: createdNow, lifetimes: byCreation };
  const activeNow = upload.activeAt + activeAge;
  if (pastLifetime(upload, activeNow, byActivity)) return { now: activeNow, lifetimes: byActivity };
  return undefined;
}

import type { ReadStore } from '../../ports/readStore.js';
import type { UploadState } from '../../domain/upload/state.js';
import { collectionOf, unfinishedUploadsProjection, type UnfinishedUpload } from '../../../projections/index.js';
import type { RequestContext } from '../context.js';
import type { MultipartDeps } from './deps.js';
import { finalizeUpload } from './finalizeUpload.js';
import { Forbidden } from '../../domain/errors.js';

/**
 * Runs finalizations: one at a time per upload (a sync finalize and the background worker share the
 * run), at most `concurrency` at once (verification is CPU and disk work). At start it resumes every
 * upload left being finalized, so a crash mid-way finishes after the restart.
 */
export function createFinalizer(options: {
  deps: MultipartDeps;
  readStore: ReadStore;
  concurrency?: number;
  log?: (message: string, error?: unknown) => void;
}) {
  const { deps, readStore, concurrency = 2, log = () => {} } = options;
  const running = new Map<string, Promise<UploadState>>();
  const waiting: (() => void)[] = [];
  let active = 0;

  async function slot<T>(task: () => Promise<T>): Promise<T> {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  }

  function finalize(uploadId: string, ctx: RequestContext): Promise<UploadState> {
    let run = running.get(uploadId);
    if (!run) {
      run = slot(() => finalizeUpload(deps, uploadId, ctx)).finally(() => running.delete(uploadId));
      running.set(uploadId, run);
    }
    return run;
  }

  return {
    finalize,
    /** starts a finalization in the background (async finalize) */
    trigger(uploadId: string, ctx: RequestContext): void {
      finalize(uploadId, ctx).catch((error) => {
        // a blocked owner's upload ended INVALID (finalizeUpload): nothing resumes
        if (!(error instanceof Forbidden)) log(`finalizing upload ${uploadId} failed; it resumes at the next start`, error);
      });
    },
    /** resumes the finalizations a previous process left unfinished */
    async resume(): Promise<number> {
      const collection = collectionOf(unfinishedUploadsProjection);
      let afterId: string | undefined;
      let resumed = 0;
      for (;;) {
        const page = await readStore.scan<UnfinishedUpload>(collection, { ...(afterId ? { afterId } : {}), limit: 500 });
        for (const { id, doc } of page) {
          if (doc.status !== 'VALIDATING' && doc.status !== 'FINALIZING') continue;
          this.trigger(id, { requestId: `resume-${id}` });
          resumed++;
        }
        if (page.length < 500) return resumed;
        afterId = page[page.length - 1]!.id;
      }
    },
    async idle(): Promise<void> {
      await Promise.allSettled([...running.values()]);
    },
  };
}
export type Finalizer = ReturnType<typeof createFinalizer>;

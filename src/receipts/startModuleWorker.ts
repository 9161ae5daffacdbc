import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on a module of this code base, which is a `.ts` file when the service runs
 * under tsx (`npm start`, mocha `--import=tsx`). Worker threads do not get tsx's loader from the
 * inherited `--import` flag (Node 20 + tsx 4 fail with `Unknown file extension ".ts"`), so they start
 * on a plain bootstrap, tsxWorkerEntry.mjs, that loads the module through tsx's `tsImport`.
 * Compiled `.js` starts directly. A failure to load surfaces as the worker's 'error' event.
 */
export function startModuleWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, options);
  return new Worker(new URL('./tsxWorkerEntry.mjs', import.meta.url), {
    ...options,
    argv: [...(options.argv ?? []), moduleUrl.href],
  });
}

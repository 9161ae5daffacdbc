// Entry of a worker thread whose module is TypeScript, started by startModuleWorker.ts. tsx's
// loader is not active in worker threads, so this plain module loads the real one (last argv)
// through tsx's own API. Plain JavaScript on purpose: nothing can compile it.
import { tsImport } from 'tsx/esm/api';

await tsImport(process.argv[process.argv.length - 1], import.meta.url);

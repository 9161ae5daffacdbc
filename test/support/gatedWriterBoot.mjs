// The gated writer worker's entry (commitGate.ts): a worker does not inherit the main thread's loader,
// so this plain module registers tsx in the worker, then loads the worker itself.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./gatedWriterWorker.ts', import.meta.url).href);

import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

/** Signs `count` distinct arweave items of `payloadBytes` on every core, before any timing starts. */
export async function presignItems(jwk: object, count: number, payloadBytes: number): Promise<Buffer[]> {
  const workers = availableParallelism();
  const shares = Array.from({ length: workers }, (_, i) => Math.floor(count / workers) + (i < count % workers ? 1 : 0));
  const parts = await Promise.all(
    shares.map(
      (share) =>
        new Promise<Uint8Array[]>((resolve, reject) => {
          const w = new Worker(new URL('./signItemsWorker.mjs', import.meta.url), { workerData: { jwk, count: share, payloadBytes } });
          w.once('message', (items: Uint8Array[]) => {
            resolve(items);
            void w.terminate();
          });
          w.once('error', reject);
        }),
    ),
  );
  return parts.flat().map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength));
}

import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

/**
 * Signs `count` distinct items of `payloadBytes` on every core, before any timing starts: of
 * `signatureType` 1 (arweave, with `jwk`, the default), 2 (ed25519), 3 (ethereum), 4 (solana) or
 * 7 (typed ethereum). Each item has the tags given (by default one, `Content-Type`).
 */
export async function presignItems(
  jwk: object,
  count: number,
  payloadBytes: number,
  signatureType = 1,
  tags?: readonly { name: string; value: string }[],
): Promise<Buffer[]> {
  const workers = availableParallelism();
  const shares = Array.from({ length: workers }, (_, i) => Math.floor(count / workers) + (i < count % workers ? 1 : 0));
  const parts = await Promise.all(
    shares.map(
      (share) =>
        new Promise<Uint8Array[]>((resolve, reject) => {
          const w = new Worker(new URL('./signItemsWorker.mjs', import.meta.url), {
            workerData: { jwk, count: share, payloadBytes, signatureType, ...(tags && { tags }) },
          });
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

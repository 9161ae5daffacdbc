import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';

export type SignerKind = 'arweave' | 'ethereum' | 'solana';
export const SIGNER_KINDS: readonly SignerKind[] = ['arweave', 'ethereum', 'solana'];

export interface SignedBytes {
  kind: SignerKind;
  raw: Buffer;
}

/**
 * Signs one item per entry of `kinds` (its signer type), each of `payloadBytes` random bytes, on
 * every core, before any timing starts: signing in the timed phase would take the cores the
 * service needs. Arweave items are signed with `jwk` (RSA-4096, as a client wallet).
 */
export async function signMixedItems(jwk: object, kinds: readonly SignerKind[], payloadBytes: number): Promise<SignedBytes[]> {
  const workers = Math.min(availableParallelism(), Math.max(1, kinds.length));
  const shares = Array.from({ length: workers }, (_, w) => kinds.filter((_, i) => i % workers === w));
  const parts = await Promise.all(
    shares.map(
      (share) =>
        new Promise<SignedBytes[]>((resolve, reject) => {
          const worker = new Worker(new URL('./signMixedWorker.mjs', import.meta.url), { workerData: { jwk, kinds: share, payloadBytes } });
          worker.once('message', (items: Uint8Array[]) => {
            resolve(items.map((u, i) => ({ kind: share[i]!, raw: Buffer.from(u.buffer, u.byteOffset, u.byteLength) })));
            void worker.terminate();
          });
          worker.once('error', reject);
        }),
    ),
  );
  return parts.flat();
}

/** `count` kinds cycling over the signer types */
export const cycleKinds = (count: number, kinds: readonly SignerKind[] = SIGNER_KINDS): SignerKind[] =>
  Array.from({ length: count }, (_, i) => kinds[i % kinds.length]!);

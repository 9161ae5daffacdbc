import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createReceiptSigner } from '../../../src/receipts/receiptSigner.js';
import { generateRsaJwk, type RsaPrivateJwk } from '../../../src/wallet/rsaJwk.js';

export interface SigningCapacity {
  /** receipts (RSA-4096 PSS signatures over the receipt deep hash) per second, all workers together */
  perSecond: number;
  workers: number;
  /**
   * CPU time of the whole process (all threads) per receipt while measuring: unlike the rate, it
   * hardly moves when other processes compete for the cores, so it shows the pool's own overhead.
   */
  cpuMsPerReceipt: number;
}

export interface MeasureSigningCapacityOptions {
  seconds: number;
  /** default: a fresh 4096-bit key */
  jwk?: RsaPrivateJwk;
  /** default: one per core, as the service runs */
  workers?: number;
}

/**
 * What this machine can sign per second with the service's own receipt signer (one worker thread
 * per core), for benchmarks that compare an upload rate with the signing ceiling. Enough requests
 * are kept in flight that no worker ever waits for work.
 */
export async function measureSigningCapacity({ seconds, jwk, workers = availableParallelism() }: MeasureSigningCapacityOptions): Promise<SigningCapacity> {
  const signer = createReceiptSigner({ jwk: jwk ?? (await generateRsaJwk()), workers });
  try {
    let next = 0;
    const signOne = () => signer.sign({ id: `capacity-${next++}`, deadlineHeight: 1_500_000, timestamp: Date.now() });
    // Warm-up: every worker started and its key loaded before the clock runs.
    await Promise.all(Array.from({ length: workers * 4 }, signOne));

    let signed = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const lane = async () => {
      while (performance.now() < deadline) {
        await signOne();
        signed++;
      }
    };
    await Promise.all(Array.from({ length: workers * 4 }, lane));
    const elapsedSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return { perSecond: signed / elapsedSeconds, workers, cpuMsPerReceipt: (cpu.user + cpu.system) / 1000 / signed };
  } finally {
    await signer.close();
  }
}

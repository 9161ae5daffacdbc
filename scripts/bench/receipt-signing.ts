import { createPrivateKey, sign } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { RECEIPT_VERSION } from '../../src/domain/receipt.js';
import { RECEIPT_PSS, receiptMessage } from '../../src/receipts/receiptMessage.js';
import { generateRsaJwk, type RsaPrivateJwk } from '../../src/wallet/rsaJwk.js';
import { measureSigningCapacity } from './lib/signingCapacity.js';
import { emitJson, round, say } from './lib/output.js';
import { median } from './lib/stats.js';

/**
 * Receipts signed per second: the worker pool (one thread per core) against a single-thread
 * `crypto.sign` loop doing the same work (deep hash + RSA-4096 PSS), measured in the same run.
 * The two alternate for a few rounds and the medians are compared, so a neighbour's load that
 * comes and goes hits both alike.
 * Usage: tsx scripts/bench/receipt-signing.ts [--seconds 3] [--rounds 3] [--json]
 */

function singleThreadRate(jwk: RsaPrivateJwk, seconds: number): { perSecond: number; cpuMsPerReceipt: number } {
  const key = createPrivateKey({ key: jwk, format: 'jwk' });
  let signed = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    const message = receiptMessage({ id: `loop-${signed}`, deadlineHeight: 1_500_000, timestamp: Date.now() }, RECEIPT_VERSION);
    sign('sha256', message, { key, ...RECEIPT_PSS });
    signed++;
  }
  const perSecond = signed / ((performance.now() - started) / 1000);
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond, cpuMsPerReceipt: (cpu.user + cpu.system) / 1000 / signed };
}

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new Error(`--${name} must be a positive number, not ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } },
  });
  const seconds = positive('seconds', values.seconds);
  const rounds = positive('rounds', values.rounds);

  const jwk = await generateRsaJwk();
  say(`receipt signing, RSA-4096 PSS, ${rounds} rounds of ${seconds} s each, ${cpus()[0]?.model ?? 'unknown cpu'}`);
  const single: { perSecond: number; cpuMsPerReceipt: number }[] = [];
  const pooled: { perSecond: number; cpuMsPerReceipt: number }[] = [];
  let workers = 0;
  for (let round = 1; round <= rounds; round++) {
    const alone = singleThreadRate(jwk, seconds);
    const pool = await measureSigningCapacity({ seconds, jwk });
    single.push(alone);
    pooled.push(pool);
    workers = pool.workers;
    say(
      `  round ${round}: single thread ${alone.perSecond.toFixed(1)}/s (${alone.cpuMsPerReceipt.toFixed(2)} CPU ms each), ` +
        `pool ${pool.perSecond.toFixed(1)}/s (${pool.cpuMsPerReceipt.toFixed(2)} CPU ms each)`,
    );
  }
  const baseline = median(single.map((r) => r.perSecond));
  const pool = median(pooled.map((r) => r.perSecond));
  const baselineCpu = median(single.map((r) => r.cpuMsPerReceipt));
  const poolCpu = median(pooled.map((r) => r.cpuMsPerReceipt));
  say(`single-thread crypto.sign loop: ${baseline.toFixed(1)} receipts/s, ${baselineCpu.toFixed(2)} CPU ms each (medians)`);
  say(`worker pool (${workers} workers):     ${pool.toFixed(1)} receipts/s, ${poolCpu.toFixed(2)} CPU ms each (medians)`);
  say(`ratio pool / single thread:     ${(pool / baseline).toFixed(2)}x the rate, ${(poolCpu / baselineCpu).toFixed(2)}x the CPU per receipt`);
  say(
    `load average during the run:    ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${availableParallelism()} cores`,
  );
  emitJson({
    benchmark: 'receipt-signing',
    workers,
    receiptsPerSecond: round(pool),
    cpuMsPerReceipt: round(poolCpu, 2),
    baseline: 'single-thread crypto.sign loop, same work',
    baselineReceiptsPerSecond: round(baseline),
    baselineCpuMsPerReceipt: round(baselineCpu, 2),
    ratio: round(pool / baseline, 2),
    loadAverage: round(loadavg()[0] ?? 0, 2),
  });
}

await main();

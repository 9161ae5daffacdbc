/**
 * Small-upload benchmark: for each signature type chosen, N concurrent clients post distinct 1 KiB
 * items of that type to the service for a fixed time. Prints, per type, uploads/s, p50/p99 latency
 * and errors, and the ratio to the machine's RSA-4096 signing capacity on all cores, measured just
 * before that type's run (a receipt costs one RSA-4096 signature, so that capacity bounds what any
 * such service can do here, whatever the item's own signature). On Linux also the service's CPU
 * time per upload against the signing pool's per signature (`cpuRatio`): on a machine shared with
 * other work the rates swing with the neighbours' load, CPU per unit of work much less; and of
 * that, the main thread's (`mainThreadCpuMsPerUpload`): work moved to a worker leaves it, not the total.
 * The load generator (this process) shares the cores: its own CPU per upload is given too
 * (`clientCpuMsPerUpload`; node:http is the client: docs/decisions.md says why not undici's pool).
 * Then the ceiling, loaded the same way with the same items: a process that verifies each item, signs
 * its receipt and answers, with the service's own verifier and signer, and stores nothing
 * (lib/receiptCeilingChild.ts). Its ratio to the signing capacity (`ceilingRatio`) is what no service
 * that keeps its items can pass here (the load generator shares the machine's cores); the service's
 * rate is also given as a ratio to it (`ratioToCeiling`). Not run with --url.
 *
 *   npm run bench:small -- [--seconds 15] [--warmup 5] [--concurrency 64] [--types 1,2,3,4,7] [--url http://host:port]
 *   BENCH_SIGNATURE_TYPES=2,4 npm run bench:small
 *
 * Types: 1 arweave, 2 ed25519, 3 ethereum, 4 solana, 7 typed ethereum; all five by default, one
 * after another, each against a fresh service (src/main.ts in a child process on a fresh data
 * directory) unless --url names one. With --json the one line keeps the shape it had when only
 * arweave items were measured (the top-level figures are type 1's, or the first type's when type 1
 * is not run) and adds `byType`, every type's figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'node:http';
import { measureSigningCapacity } from './lib/signingCapacity.js';
import { presignItems } from './lib/presign.js';
import { percentile } from './lib/stats.js';
import { startNodeProcess, startServiceProcess } from '../lib/serviceProcess.js';
import { fileURLToPath } from 'node:url';
import { processCpuMs } from './lib/processCpu.js';
import { benchGatewayUrl } from './lib/heightGateway.js';

const TYPE_NAMES: Readonly<Record<number, string>> = { 1: 'arweave', 2: 'ed25519', 3: 'ethereum', 4: 'solana', 7: 'typed ethereum' };

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '64' },
    types: { type: 'string', default: process.env.BENCH_SIGNATURE_TYPES ?? '1,2,3,4,7' },
    url: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const concurrency = Number(values.concurrency);
const types = values.types.split(',').map((t) => Number(t.trim()));
for (const type of types) {
  if (!TYPE_NAMES[type]) throw new Error(`--types: ${type} is not one of ${Object.keys(TYPE_NAMES).join(', ')}`);
}
const PAYLOAD_BYTES = 1024;

function post(agent: Agent, url: URL, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/octet-stream', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface TypeResult {
  signatureType: number;
  name: string;
  seconds: number;
  uploads: number;
  uploadsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** RSA-4096 signatures/s on all cores, measured just before this type's run */
  baselinePerSecond: number;
  ratio: number;
  /** the service's CPU ms per upload and the signing pool's per signature, when measurable */
  cpuMsPerUpload?: number;
  baselineCpuMsPerSignature: number;
  cpuRatio?: number;
  /** of cpuMsPerUpload, the service's main thread's (the event loop, which no worker relieves) */
  mainThreadCpuMsPerUpload?: number;
  /** the load generator's own CPU ms per upload (this process, on the same cores as the service) */
  clientCpuMsPerUpload: number;
  /** the same load on the ceiling (lib/receiptCeilingChild.ts: verify, sign, answer, store nothing) */
  ceilingPerSecond?: number;
  /** the ceiling's rate to the signing capacity: what no service that stores its items can pass */
  ceilingRatio?: number;
  /** the service's rate to the ceiling's */
  ratioToCeiling?: number;
  ceilingCpuMsPerUpload?: number;
  ranOutOfItems: boolean;
}

/**
 * One type's run: its items signed first, the signing capacity measured, then a fresh service (or
 * --url) loaded for `seconds`.
 */
async function runType(signatureType: number, firstCapacityPerSecond: number, clientJwk: object): Promise<TypeResult> {
  // Enough distinct items that the clients never run out, even at full signing capacity (with room
  // for the neighbours' load to drop after the first measure).
  const count = Math.ceil(firstCapacityPerSecond * (seconds + warmupSeconds) * 1.5) + concurrency;
  process.stderr.write(`type ${signatureType} (${TYPE_NAMES[signatureType]}): pre-signing ${count} items of ${PAYLOAD_BYTES} bytes...\n`);
  const items = await presignItems(clientJwk, count, PAYLOAD_BYTES, signatureType);
  const capacity = await measureSigningCapacity({ seconds: 5 });
  process.stderr.write(`  signing capacity now: ${capacity.perSecond.toFixed(0)} RSA-4096 signatures/s\n`);

  let dataDir: string | undefined;
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  let base = values.url;
  if (!base) {
    dataDir = await mkdtemp(join(tmpdir(), 'bench-small-'));
    dataDirs.push(dataDir);
    // the block height comes from a small in-process gateway, no network at all
    service = await startServiceProcess({ DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), LOG_LEVEL: 'error' });
    base = service.url;
  }
  let run: LoadRun;
  try {
    run = await load(base, service?.process.pid, items);
  } finally {
    await service?.stop();
  }

  // the ceiling: the same items, verified, receipted and answered by a process that stores nothing
  let ceiling: LoadRun | undefined;
  if (!values.url) {
    const child = await startNodeProcess(['--import', 'tsx', fileURLToPath(new URL('./lib/receiptCeilingChild.ts', import.meta.url))], {});
    try {
      ceiling = await load(child.url, child.process.pid, items);
    } finally {
      await child.stop();
    }
  }

  const uploadsPerSecond = run.uploads / run.seconds;
  const ceilingPerSecond = ceiling && ceiling.uploads / ceiling.seconds;
  return {
    signatureType,
    name: TYPE_NAMES[signatureType]!,
    seconds: Number(run.seconds.toFixed(2)),
    uploads: run.uploads,
    uploadsPerSecond: Number(uploadsPerSecond.toFixed(1)),
    p50Ms: Number(percentile(run.latencies, 50).toFixed(1)),
    p99Ms: Number(percentile(run.latencies, 99).toFixed(1)),
    errors: run.errors,
    baselinePerSecond: Number(capacity.perSecond.toFixed(1)),
    ratio: Number((uploadsPerSecond / capacity.perSecond).toFixed(3)),
    ...(run.cpuMs !== undefined && {
      cpuMsPerUpload: Number(run.cpuMs.toFixed(2)),
      cpuRatio: Number((capacity.cpuMsPerReceipt / run.cpuMs).toFixed(3)),
    }),
    ...(run.mainThreadCpuMs !== undefined && { mainThreadCpuMsPerUpload: Number(run.mainThreadCpuMs.toFixed(2)) }),
    clientCpuMsPerUpload: Number(run.clientCpuMs.toFixed(2)),
    baselineCpuMsPerSignature: Number(capacity.cpuMsPerReceipt.toFixed(2)),
    ...(ceiling &&
      ceilingPerSecond !== undefined && {
        ceilingPerSecond: Number(ceilingPerSecond.toFixed(1)),
        ceilingRatio: Number((ceilingPerSecond / capacity.perSecond).toFixed(3)),
        ratioToCeiling: Number((uploadsPerSecond / ceilingPerSecond).toFixed(3)),
        ...(ceiling.cpuMs !== undefined && { ceilingCpuMsPerUpload: Number(ceiling.cpuMs.toFixed(2)) }),
      }),
    ranOutOfItems: run.ranOutOfItems || (ceiling?.ranOutOfItems ?? false),
  };
}

interface LoadRun {
  seconds: number;
  uploads: number;
  latencies: number[];
  errors: number;
  /** the server's CPU ms per upload, all threads and the main thread's, when measurable */
  cpuMs?: number;
  mainThreadCpuMs?: number;
  /** the load generator's CPU ms per upload */
  clientCpuMs: number;
  ranOutOfItems: boolean;
}

/** `concurrency` clients posting `items` (from the first) to `base` for `seconds`, after a warm-up */
async function load(base: string, pid: number | undefined, items: readonly Buffer[]): Promise<LoadRun> {
  const url = new URL('/v1/tx', base);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    // warm-up: the same load for `warmup` seconds, unmeasured, so that worker threads, caches and
    // V8's optimised code are ready (without it, V8's compiler threads' first optimisations fall in
    // the measured window: docs/decisions.md, the warm-up)
    let next = 0;
    const warm = performance.now() + warmupSeconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < warm && next < items.length) await post(agent, url, items[next++]!).catch(() => 0);
      }),
    );

    const latencies: number[] = [];
    let errors = 0;
    const cpuBefore = await processCpuMs(pid);
    const mainBefore = await processCpuMs(pid, { mainThread: true });
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline && next < items.length) {
          const body = items[next++]!;
          const t0 = performance.now();
          try {
            const status = await post(agent, url, body);
            if (status === 200) latencies.push(performance.now() - t0);
            else errors++;
          } catch {
            errors++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const client = process.cpuUsage(clientBefore);
    const cpuAfter = await processCpuMs(pid);
    const mainAfter = await processCpuMs(pid, { mainThread: true });
    const uploads = latencies.length;
    const perUpload = (before: number | undefined, after: number | undefined) =>
      before !== undefined && after !== undefined && uploads > 0 ? (after - before) / uploads : undefined;
    const cpuMs = perUpload(cpuBefore, cpuAfter);
    const mainThreadCpuMs = perUpload(mainBefore, mainAfter);
    return {
      seconds: elapsed,
      uploads,
      latencies,
      errors,
      ...(cpuMs !== undefined && { cpuMs }),
      ...(mainThreadCpuMs !== undefined && { mainThreadCpuMs }),
      clientCpuMs: uploads > 0 ? (client.user + client.system) / 1000 / uploads : 0,
      ranOutOfItems: next >= items.length,
    };
  } finally {
    agent.destroy();
  }
}

/**
 * The runs' data directories, deleted once every run is over: on ext4 without a journal (this build
 * machine's disk) a file created within minutes of thousands of deletions costs the kernel a search
 * past the recently deleted inodes, which made every type after the first pay for the run before it
 * (types 1 then 4: 0.63 and 0.581; 4 then 1: 0.614 and 0.604).
 */
const dataDirs: string[] = [];

async function main() {
  const capacity = await measureSigningCapacity({ seconds: 5 });
  process.stderr.write(`signing capacity: ${capacity.perSecond.toFixed(0)} RSA-4096 signatures/s on ${capacity.workers} workers\n`);
  const clientJwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });

  const byType: TypeResult[] = [];
  for (const type of types) {
    const result = await runType(type, capacity.perSecond, clientJwk);
    byType.push(result);
    if (!values.json) {
      process.stdout.write(
        `small uploads, type ${type} (${result.name}): ${result.uploadsPerSecond} uploads/s (${result.uploads} in ${result.seconds}s, ${concurrency} clients), ` +
          `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, errors ${result.errors}; ` +
          `ratio ${result.ratio} to ${result.baselinePerSecond} RSA-4096 signatures/s on all cores` +
          (result.cpuMsPerUpload === undefined ? '' : `; ${result.cpuMsPerUpload} CPU ms per upload, cpu ratio ${result.cpuRatio}`) +
          (result.mainThreadCpuMsPerUpload === undefined ? '' : `; main thread ${result.mainThreadCpuMsPerUpload} CPU ms per upload`) +
          `; the load generator ${result.clientCpuMsPerUpload} CPU ms per upload` +
          (result.ceilingPerSecond === undefined
            ? '\n'
            : `; ceiling (verify, sign, store nothing) ${result.ceilingPerSecond} uploads/s, ratio ${result.ceilingRatio} to the signing capacity, ` +
              `${result.ceilingCpuMsPerUpload} CPU ms per upload; the service at ${result.ratioToCeiling} of it\n`),
      );
    }
  }
  const main = byType.find((r) => r.signatureType === 1) ?? byType[0]!;
  const result = {
    benchmark: 'small-uploads',
    signatureType: main.signatureType,
    seconds: main.seconds,
    concurrency,
    uploads: main.uploads,
    uploadsPerSecond: main.uploadsPerSecond,
    p50Ms: main.p50Ms,
    p99Ms: main.p99Ms,
    errors: main.errors,
    baseline: 'RSA-4096 PSS signatures/s on all cores',
    baselinePerSecond: main.baselinePerSecond,
    ratio: main.ratio,
    ranOutOfItems: main.ranOutOfItems,
    byType,
  };
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
    process.exit();
  });

/**
 * Small-upload benchmark: N concurrent clients post distinct 1 KiB arweave-signed items to the
 * service for a fixed time. Prints uploads/s, p50/p99 latency and errors, and the ratio to the
 * machine's RSA-4096 signing capacity on all cores measured in the same run (a receipt costs one
 * RSA-4096 signature, so that capacity bounds what any such service can do here).
 *
 *   npm run bench:small -- [--seconds 15] [--concurrency 64] [--url http://host:port]
 *
 * Without --url it starts the service (src/main.ts) in a child process on a fresh data directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'node:http';
import { measureSigningCapacity } from './lib/signingCapacity.js';
import { presignItems } from './lib/presign.js';
import { percentile } from './lib/latency.js';
import { startServiceProcess } from '../lib/serviceProcess.js';
import { benchGatewayUrl } from './lib/heightGateway.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    concurrency: { type: 'string', default: '64' },
    url: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const PAYLOAD_BYTES = 1024;

function post(agent: Agent, url: URL, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/octet-stream', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const capacity = await measureSigningCapacity({ seconds: 5 });
  process.stderr.write(`signing capacity: ${capacity.perSecond.toFixed(0)} RSA-4096 signatures/s on ${capacity.workers} workers\n`);

  // Enough distinct items that the clients never run out, even at full signing capacity.
  const count = Math.ceil(capacity.perSecond * seconds * 1.1) + concurrency;
  const clientJwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });
  process.stderr.write(`pre-signing ${count} items of ${PAYLOAD_BYTES} bytes...\n`);
  const items = await presignItems(clientJwk, count, PAYLOAD_BYTES);

  let dataDir: string | undefined;
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  let base = values.url;
  if (!base) {
    dataDir = await mkdtemp(join(tmpdir(), 'bench-small-'));
    // the discard port: the gateway is unreachable, so the block height comes from no network at all
    service = await startServiceProcess({ DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), LOG_LEVEL: 'error' });
    base = service.url;
  }
  const url = new URL('/v1/tx', base);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

  // warm-up: a few uploads so worker threads and caches are ready
  let next = 0;
  for (let i = 0; i < Math.min(concurrency, 16); i++) await post(agent, url, items[next++]!);

  const latencies: number[] = [];
  let errors = 0;
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
  agent.destroy();
  await service?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });

  const uploadsPerSecond = latencies.length / elapsed;
  const result = {
    benchmark: 'small-uploads',
    seconds: Number(elapsed.toFixed(2)),
    concurrency,
    uploads: latencies.length,
    uploadsPerSecond: Number(uploadsPerSecond.toFixed(1)),
    p50Ms: Number(percentile(latencies, 50).toFixed(1)),
    p99Ms: Number(percentile(latencies, 99).toFixed(1)),
    errors,
    baseline: 'RSA-4096 PSS signatures/s on all cores',
    baselinePerSecond: Number(capacity.perSecond.toFixed(1)),
    ratio: Number((uploadsPerSecond / capacity.perSecond).toFixed(3)),
    ranOutOfItems: next >= items.length,
  };
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
  else {
    process.stdout.write(
      `small uploads: ${result.uploadsPerSecond} uploads/s (${result.uploads} in ${result.seconds}s, ${concurrency} clients), ` +
        `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, errors ${errors}\n` +
        `baseline: ${result.baselinePerSecond} RSA-4096 signatures/s on all cores; ratio ${result.ratio}\n`,
    );
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

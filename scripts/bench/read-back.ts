/**
 * Read-back benchmark: one item (default 1 GiB; `BENCH_MIB` or `--size` for less) uploaded to a
 * service process, then its payload read through `GET /:id` to the end (bytes counted and dropped),
 * against a baseline measured in the same run: a bare file read of the same payload bytes from the
 * item's file. Both read from the page cache once warm, so the ratio is what HTTP and the service
 * add to reading the bytes. Prints MiB/s for each, the ratio (target >= 0.7) and the service's peak RSS;
 * and, to tell the service's share from loopback HTTP's, a bare `node:http` server streaming the same
 * file bytes (in this process, so it shares a core with the client: a lower bound of HTTP alone).
 *
 *   npx tsx scripts/bench/read-back.ts [--size 1073741824] [--rounds 2] [--json]
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServiceProcess, type ServiceProcess } from '../lib/serviceProcess.js';
import { fileRange, writeLargeItem } from './lib/largeItem.js';
import { emitJson, round, say } from './lib/output.js';
import { peakRssMiB } from './lib/peakRss.js';
import { benchGatewayUrl } from './lib/heightGateway.js';
import { SYNTHETIC_HEADER_BYTES } from './lib/syntheticItem.js';

const MiB = 1 << 20;
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: String(process.env.BENCH_MIB ? Number(process.env.BENCH_MIB) * MiB : 1 << 30) },
    rounds: { type: 'string', default: process.env.BENCH_ROUNDS ?? '2' },
    json: { type: 'boolean', default: false },
  },
});
const size = Number(values.size);
const rounds = Number(values.rounds);
const payloadBytes = size - SYNTHETIC_HEADER_BYTES;

function upload(service: ServiceProcess, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}/v1/tx`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': size } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text).id as string) : reject(new Error(`upload answered ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    fileRange(file, 0, size).pipe(req);
  });
}

/** seconds to read `GET /:id` to its end; throws unless it is exactly the payload's length */
function readBack(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET answered ${res.statusCode}`));
      let bytes = 0;
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('end', () => (bytes === payloadBytes ? resolve((performance.now() - started) / 1000) : reject(new Error(`read ${bytes} bytes, expected ${payloadBytes}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** seconds to read the same payload bytes from the item's file */
async function fileRead(file: string): Promise<number> {
  const started = performance.now();
  let bytes = 0;
  for await (const d of createReadStream(file, { start: SYNTHETIC_HEADER_BYTES, highWaterMark: MiB })) bytes += (d as Buffer).length;
  if (bytes !== payloadBytes) throw new Error(`file read ${bytes} bytes`);
  return (performance.now() - started) / 1000;
}

/** a bare node:http server answering the payload bytes of `file`, as the service does */
async function bareFileServer(file: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.setHeader('Content-Length', payloadBytes);
    pipeline(createReadStream(file, { start: SYNTHETIC_HEADER_BYTES, highWaterMark: MiB }), res).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}/` };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-read-back-'));
  const dataDir = join(dir, 'data');
  let service: ServiceProcess | undefined;
  try {
    say(`writing a signed item of ${size} bytes...`);
    const file = join(dir, 'item.bin');
    const { id } = await writeLargeItem(file, size);
    service = await startServiceProcess({ DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), FREE_UPLOAD_LIMIT_BYTES: String(size), LOG_LEVEL: 'error' });
    say('uploading it...');
    if ((await upload(service, file)) !== id) throw new Error('the service stored another id');
    // best of the rounds, each side warmed by the first (both then read from the page cache)
    let best = { http: Infinity, file: Infinity, bareHttp: Infinity };
    const bare = await bareFileServer(file);
    try {
      for (let round = 0; round < rounds; round++) {
        say(`round ${round + 1}: GET /${id}, the bare file read, a bare HTTP server...`);
        const http = await readBack(`${service.url}/${id}`);
        const fromFile = await fileRead(file);
        const bareHttp = await readBack(bare.url);
        best = { http: Math.min(best.http, http), file: Math.min(best.file, fromFile), bareHttp: Math.min(best.bareHttp, bareHttp) };
      }
    } finally {
      bare.server.close();
    }
    const httpMiBps = payloadBytes / MiB / best.http;
    const fileMiBps = payloadBytes / MiB / best.file;
    const result = {
      benchmark: 'read-back',
      sizeBytes: size,
      readBackMiBps: round(httpMiBps),
      baselineMiBps: round(fileMiBps),
      ratio: round(httpMiBps / fileMiBps, 3),
      bareHttpMiBps: round(payloadBytes / MiB / best.bareHttp),
      peakRssMiB: round(await peakRssMiB(service.process.pid!)),
      rounds,
    };
    say(`GET /:id ${result.readBackMiBps} MiB/s, bare file read ${result.baselineMiBps} MiB/s, ratio ${result.ratio} (target >= 0.7); a bare HTTP server ${result.bareHttpMiBps} MiB/s; service peak RSS ${result.peakRssMiB} MiB`);
    emitJson(result);
  } finally {
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

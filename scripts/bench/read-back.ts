/**
 * Read-back benchmark: one item (default 1 GiB; `BENCH_MIB` or `--size` for less) uploaded to a
 * service process, then its payload read through `GET /:id` to the end (bytes counted and dropped),
 * against a baseline measured in the same run: a bare file read of the same payload bytes from the
 * item's file. Both read from the page cache once warm, and both through the same reader (one 1 MiB
 * buffer filled again and again, see lib/bufferedReads.ts), so the ratio is what HTTP and the
 * service add to reading the bytes. Prints MiB/s for each, the ratio (target >= 0.7), the service's
 * CPU per GiB read (steadier than a rate on a busy machine) and its peak RSS; and, to tell the
 * service's share from loopback HTTP's, a bare `node:http` server streaming the same file bytes (in
 * this process, so it shares a core with the reader: a lower bound of HTTP alone) and the loopback
 * ceiling: a process of its own sending as many bytes from memory over a raw socket with a minimal
 * HTTP head (lib/loopbackCeilingChild.mjs), which no server reading its bytes from anywhere can
 * beat. Its ratio to the file read is the most any HTTP read-back can reach on this machine.
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
import { processCpuMs } from './lib/processCpu.js';
import { getInto, readFileInto } from './lib/bufferedReads.js';
import { benchGatewayUrl } from './lib/heightGateway.js';
import { startLoopbackCeiling } from './lib/bareServer.js';
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

/** the reader's buffer, the same for both sides */
const buffer = Buffer.allocUnsafe(MiB);

/** seconds to read `GET url` to its end; throws unless it is exactly the payload's length */
async function readBack(url: string): Promise<number> {
  const started = performance.now();
  const { status, bytes } = await getInto(url, buffer);
  if (status !== 200) throw new Error(`GET answered ${status}`);
  if (bytes !== payloadBytes) throw new Error(`read ${bytes} bytes, expected ${payloadBytes}`);
  return (performance.now() - started) / 1000;
}

/** seconds to read the same payload bytes from the item's file */
async function fileRead(file: string): Promise<number> {
  const started = performance.now();
  const bytes = await readFileInto(file, SYNTHETIC_HEADER_BYTES, buffer);
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
    const env = { DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), FREE_UPLOAD_LIMIT_BYTES: String(size), LOG_LEVEL: 'error' };
    service = await startServiceProcess(env);
    say('uploading it...');
    if ((await upload(service, file)) !== id) throw new Error('the service stored another id');
    // read from a service started afterwards, as stored items are mostly read: the upload's 1 GiB
    // (its chunks, its hashing) leaves the heap and the collector in a state reads alone do not
    // meet, and the peak RSS is then the reads' own
    await service.stop();
    service = await startServiceProcess(env);
    // best of the rounds, each side warmed by the first (both then read from the page cache)
    let best = { http: Infinity, file: Infinity, bareHttp: Infinity, ceiling: Infinity };
    let serviceCpuMs = 0;
    const bare = await bareFileServer(file);
    const ceiling = await startLoopbackCeiling(payloadBytes);
    try {
      for (let round = 0; round < rounds; round++) {
        say(`round ${round + 1}: GET /${id}, the bare file read, a bare HTTP server, the loopback ceiling...`);
        const cpuBefore = await processCpuMs(service.process.pid);
        const http = await readBack(`${service.url}/${id}`);
        const cpuAfter = await processCpuMs(service.process.pid);
        if (cpuBefore !== undefined && cpuAfter !== undefined) serviceCpuMs += cpuAfter - cpuBefore;
        const fromFile = await fileRead(file);
        const bareHttp = await readBack(bare.url);
        const fromMemory = await readBack(ceiling.url);
        best = {
          http: Math.min(best.http, http),
          file: Math.min(best.file, fromFile),
          bareHttp: Math.min(best.bareHttp, bareHttp),
          ceiling: Math.min(best.ceiling, fromMemory),
        };
      }
    } finally {
      bare.server.close();
      await ceiling.close();
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
      loopbackCeilingMiBps: round(payloadBytes / MiB / best.ceiling),
      /** the most a read-back over loopback HTTP can reach here, as a ratio to the file read */
      ceilingRatio: round(best.file / best.ceiling, 3),
      /** the service's share of that ceiling */
      ratioToCeiling: round(best.ceiling / best.http, 3),
      // 0 where the process's CPU time cannot be read (not Linux)
      serviceCpuMsPerGiB: round(serviceCpuMs / ((rounds * payloadBytes) / (1 << 30))),
      peakRssMiB: round(await peakRssMiB(service.process.pid!)),
      rounds,
    };
    say(
      `GET /:id ${result.readBackMiBps} MiB/s, bare file read ${result.baselineMiBps} MiB/s, ratio ${result.ratio} (target >= 0.7); a bare HTTP server ${result.bareHttpMiBps} MiB/s; the loopback ceiling ${result.loopbackCeilingMiBps} MiB/s (ratio ${result.ceilingRatio} to the file read; the service at ${result.ratioToCeiling} of it); service CPU ${result.serviceCpuMsPerGiB} ms per GiB read, peak RSS ${result.peakRssMiB} MiB`,
    );
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

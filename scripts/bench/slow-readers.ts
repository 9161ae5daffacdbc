/**
 * Clients reading back without taking the bytes (issue 34): one connection pipelining 900 `GET /:id`
 * of an 8 MiB item in one write and reading nothing, and 400 connections each reading the item, half
 * reading nothing, half 16 KiB every 20 s. Meanwhile a bystander polls `GET /info`. Measures the
 * service's RSS and open files (its /proc) against their idle figures (the baseline, measured before
 * the attack), how long after the clients stop the open files take to come back to the idle count,
 * and the bystander's latency against its own latency before the attack.
 *
 * Targets: RSS within 200 MiB of idle throughout, the open files back within BODY_IDLE_TIMEOUT_MS of
 * the clients stopping, the bystander's p99 under 500 ms.
 *
 *   npx tsx scripts/bench/slow-readers.ts [--readers 400] [--pipelined 900] [--hold 30] [--idle-ms 10000] [--json]
 *
 * `--hold`: seconds the clients stay before they stop (the service cuts most of them before that:
 * the idle timeout, then the minimum rate). `--idle-ms`: the service's BODY_IDLE_TIMEOUT_MS (default
 * 10 s instead of the service's 120 s, to keep the run short). The readers come from 127.0.0.2 to
 * 127.0.0.5 (the per-client connection cap is 256), the bystander from 127.0.0.1.
 */
import { readdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServiceProcess, type ServiceProcess } from '../lib/serviceProcess.js';
import { benchGatewayUrl } from './lib/heightGateway.js';
import { fileRange, writeLargeItem } from './lib/largeItem.js';
import { emitJson, round, say } from './lib/output.js';
import { rssMiB } from './lib/peakRss.js';
import { percentile } from './lib/stats.js';

const MiB = 1 << 20;
const { values } = parseArgs({
  options: {
    readers: { type: 'string', default: '400' },
    pipelined: { type: 'string', default: '900' },
    hold: { type: 'string', default: '30' },
    'idle-ms': { type: 'string', default: '10000' },
    'item-mib': { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});
const readers = Number(values.readers);
const pipelined = Number(values.pipelined);
const holdMs = Number(values.hold) * 1000;
const idleMs = Number(values['idle-ms']);
const size = Number(values['item-mib']) * MiB;
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const openFiles = async (pid: number) => (await readdir(`/proc/${pid}/fd`)).length;

function upload(url: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/tx`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': size } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text).id as string) : reject(new Error(`upload answered ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    fileRange(file, 0, size).pipe(req);
  });
}

/** a connection that sends `requests` and then takes `take` bytes every `everyMs` (0: nothing) */
function reader(url: string, localAddress: string, requests: string, take: number, everyMs: number): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    socket.pause();
    socket.on('error', () => {});
    const timer = take > 0 ? setInterval(() => socket.read(Math.min(take, socket.readableLength)), everyMs) : undefined;
    socket.once('close', () => clearInterval(timer));
    socket.once('connect', () => {
      socket.write(requests);
      resolve(socket);
    });
  });
}

/** GET /info one after another until `until()`; the latencies in ms */
async function bystander(url: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!until()) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(`${url}/info`, { agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    latencies.push(performance.now() - started);
    await sleep(50);
  }
  return latencies;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-slow-readers-'));
  let service: ServiceProcess | undefined;
  const sockets: Socket[] = [];
  try {
    const file = join(dir, 'item.bin');
    const { id } = await writeLargeItem(file, size);
    const env = {
      DATA_DIR: join(dir, 'data'),
      GATEWAY_URL: await benchGatewayUrl(),
      FREE_UPLOAD_LIMIT_BYTES: String(size),
      BODY_IDLE_TIMEOUT_MS: String(idleMs),
      LOG_LEVEL: 'error',
    };
    service = await startServiceProcess(env);
    const pid = service.process.pid!;
    const url = service.url;
    if ((await upload(url, file)) !== id) throw new Error('the service stored another id');

    say('idle: the bystander alone for 5 s...');
    let stop = Date.now() + 5_000;
    const baselineLatencies = await bystander(url, () => Date.now() > stop);
    await sleep(1_000);
    const idleRss = await rssMiB(pid);
    const idleFiles = await openFiles(pid);

    say(`the attack: ${pipelined} pipelined GETs on one connection, ${readers} readers (half read nothing, half 16 KiB every 20 s), for ${holdMs / 1000} s...`);
    let attacking = true;
    const during = bystander(url, () => !attacking);
    const get = `GET /${id} HTTP/1.1\r\nHost: bench\r\n\r\n`;
    sockets.push(await reader(url, ADDRESSES[0]!, get.repeat(pipelined), 0, 0));
    for (let i = 0; i < readers; i++) {
      sockets.push(await reader(url, ADDRESSES[i % ADDRESSES.length]!, get, i % 2 === 0 ? 0 : 16 * 1024, 20_000));
    }
    let peakRss = idleRss;
    let peakFiles = idleFiles;
    const sample = async () => {
      peakRss = Math.max(peakRss, await rssMiB(pid));
      peakFiles = Math.max(peakFiles, await openFiles(pid));
    };
    stop = Date.now() + holdMs;
    while (Date.now() < stop) {
      await sample();
      await sleep(250);
    }
    // what the service still holds when the clients stop (it cut the others: idle timeout, minimum rate)
    const filesAtStop = await openFiles(pid);
    say('the clients stop...');
    for (const socket of sockets) socket.destroy();
    const stopped = performance.now();
    let filesBackMs: number | undefined;
    while (performance.now() - stopped < idleMs + 30_000) {
      await sample();
      if ((await openFiles(pid)) <= idleFiles) {
        filesBackMs = performance.now() - stopped;
        break;
      }
      await sleep(50);
    }
    attacking = false;
    const latencies = await during;
    const result = {
      benchmark: 'slow-readers',
      readers,
      pipelined,
      itemBytes: size,
      holdSeconds: holdMs / 1000,
      idleTimeoutMs: idleMs,
      idleRssMiB: round(idleRss),
      peakRssMiB: round(peakRss),
      rssAboveIdleMiB: round(peakRss - idleRss),
      idleOpenFiles: idleFiles,
      peakOpenFiles: peakFiles,
      /** ms from the clients stopping until the open files were back to the idle count; -1: not within idle + 30 s */
      filesBackMs: filesBackMs === undefined ? -1 : round(filesBackMs),
      /** the service's open files when the clients stopped */
      openFilesAtStop: filesAtStop,
      bystander: {
        requests: latencies.length,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(Math.max(...latencies)),
        baselineP50Ms: round(percentile(baselineLatencies, 50)),
        baselineP99Ms: round(percentile(baselineLatencies, 99)),
      },
    };
    say(
      `RSS ${result.peakRssMiB} MiB at most, idle ${result.idleRssMiB} MiB (+${result.rssAboveIdleMiB}, target < 200); open files ${result.peakOpenFiles} at most, idle ${idleFiles}, ` +
        `back ${filesBackMs === undefined ? 'NOT within the idle timeout + 30 s' : `${Math.round(filesBackMs)} ms`} after the clients stopped (target <= ${idleMs} ms); ` +
        `${filesAtStop} open when the clients stopped; bystander /info p50 ${result.bystander.p50Ms} ms, p99 ${result.bystander.p99Ms} ms, ` +
        `max ${result.bystander.maxMs} ms over ${latencies.length} requests (idle: p50 ${result.bystander.baselineP50Ms}, p99 ${result.bystander.baselineP99Ms}; target p99 < 500 ms)`,
    );
    emitJson(result);
  } finally {
    for (const socket of sockets) socket.destroy();
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

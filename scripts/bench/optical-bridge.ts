/**
 * Optical bridge benchmark: small uploads at full rate (N clients posting distinct 1 KiB arweave
 * items for a fixed time, as small-uploads.ts does) against a fresh service with the optical
 * bridge off, then against one with it on, posting to a sink ar.io gateway (lib/opticalSink.ts, a
 * process of its own that answers the queue route as ar-io-node does and counts the headers).
 * Prints the uploads/s of both and their ratio (on / off; the target is at least 0.95), and, with
 * the bridge on, whether it keeps up: its backlog (uploads answered minus headers the gateway took)
 * sampled every `--sample-ms`, its mean over the first and the last third of the run, its peak, and
 * how long it takes to drain once the load stops; posts/s and headers per post. On Linux also the
 * service's CPU per upload both ways and their ratio (`cpuRatio`, off / on): on a machine shared
 * with other work the rates swing with the neighbours' load between runs, CPU per upload much less;
 * and its main thread's alone in each mode (`mainCpuMsPerUpload`): the receipts are signed on worker
 * threads that keep both cores busy, so what the bridge and the projection add to the event loop is
 * what they take from signing.
 *
 *   npx tsx scripts/bench/optical-bridge.ts [--seconds 15] [--warmup 3] [--concurrency 64] [--rounds 1] [--json]
 *
 * Issue 36's figure, in the same run: the same uploads with the optical bridge and the GraphQL read
 * model both off (GRAPHQL_ENABLED=false), the ratio of both on over both off (target at least 0.95,
 * `allRatio`) and CPU per upload both ways. The bridge's own ratio compares it on and off with GraphQL on.
 *
 * `--rounds N` runs the three N times, rotating which goes first; the medians are compared.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServiceProcess } from '../lib/serviceProcess.js';
import { benchGatewayUrl } from './lib/heightGateway.js';
import { startOpticalSink, type OpticalSink } from './lib/opticalSink.js';
import { presignItems } from './lib/presign.js';
import { processCpuMs } from './lib/processCpu.js';
import { measureSigningCapacity } from './lib/signingCapacity.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '1' },
    'sample-ms': { type: 'string', default: '500' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const warmupSeconds = Number(values.warmup);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const sampleMs = Number(values['sample-ms']);
const ADMIN_KEY = 'bench-admin-key';
/** issue 36: uploads/s with the bridge and GraphQL on, over both off, at least */
const ALL_TARGET = 0.95;
/** the longest wait for the backlog to drain after the load */
const DRAIN_LIMIT_MS = 60_000;

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

/** what a run turns on: nothing, the GraphQL read model only (the default service), or it and the bridge */
type Mode = 'none' | 'graphql' | 'both';
const MODES: readonly Mode[] = ['none', 'graphql', 'both'];

interface Run {
  mode: Mode;
  bridge: boolean;
  uploadsPerSecond: number;
  uploads: number;
  errors: number;
  /** the service's CPU ms per upload (all its threads), where measurable (Linux) */
  cpuMsPerUpload?: number;
  /** of it, its main thread's (the event loop, where the bridge and the projections run; the receipts are signed on others) */
  mainCpuMsPerUpload?: number;
  /** with the bridge on: backlog samples [seconds since the measured start, items] */
  backlog?: [number, number][];
  drainSeconds?: number;
  posts?: number;
  headers?: number;
  refused?: number;
}

/** `concurrency` clients posting `items` from `from` for `warmup` + `seconds`; the backlog sampled while measuring */
async function load(base: string, pid: number | undefined, items: readonly Buffer[], sink: OpticalSink | undefined, firstHeaders: () => Promise<number>) {
  const url = new URL('/v1/tx', base);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let accepted = 0;
  let errors = 0;
  const backlog: [number, number][] = [];
  const clients = (until: number, count: boolean) =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until && next < items.length) {
          const status = await post(agent, url, items[next++]!).catch(() => 0);
          if (status === 200) accepted++;
          else if (count) errors++;
        }
      }),
    );
  try {
    await clients(performance.now() + warmupSeconds * 1000, false);
    const warmAccepted = accepted;
    const cpuBefore = await processCpuMs(pid);
    const mainBefore = await processCpuMs(pid, { mainThread: true });
    const started = performance.now();
    const sampler = sink && setInterval(() => void firstHeaders().then((h) => backlog.push([(performance.now() - started) / 1000, accepted - h])), sampleMs);
    await clients(started + seconds * 1000, true);
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = await processCpuMs(pid);
    const mainAfter = await processCpuMs(pid, { mainThread: true });
    if (sampler) clearInterval(sampler);
    const uploads = accepted - warmAccepted;
    const perUpload = (before: number | undefined, after: number | undefined) =>
      before !== undefined && after !== undefined && uploads > 0 ? (after - before) / uploads : undefined;
    const [cpuMsPerUpload, mainCpuMsPerUpload] = [perUpload(cpuBefore, cpuAfter), perUpload(mainBefore, mainAfter)];
    return { uploads, totalAccepted: accepted, errors, elapsed, backlog, cpuMsPerUpload, mainCpuMsPerUpload, ranOut: next >= items.length };
  } finally {
    agent.destroy();
  }
}

async function runOnce(mode: Mode, items: readonly Buffer[]): Promise<Run> {
  const bridge = mode === 'both';
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-bridge-'));
  const sink = bridge ? await startOpticalSink(ADMIN_KEY) : undefined;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    GATEWAY_URL: await benchGatewayUrl(),
    LOG_LEVEL: 'error',
    GRAPHQL_ENABLED: mode === 'none' ? 'false' : 'true',
  };
  if (sink) Object.assign(env, { OPTICAL_BRIDGE_URLS: sink.url, OPTICAL_BRIDGE_ADMIN_KEY: ADMIN_KEY });
  const service = await startServiceProcess(env);
  try {
    const headers = async () => (sink ? (await sink.tally()).headers : 0);
    const run = await load(service.url, service.process.pid, items, sink, headers);
    if (run.ranOut) process.stderr.write('  (ran out of items: sign more)\n');
    const result: Run = {
      mode,
      bridge,
      uploadsPerSecond: Number((run.uploads / run.elapsed).toFixed(1)),
      uploads: run.uploads,
      errors: run.errors,
      ...(run.cpuMsPerUpload !== undefined && { cpuMsPerUpload: Number(run.cpuMsPerUpload.toFixed(2)) }),
      ...(run.mainCpuMsPerUpload !== undefined && { mainCpuMsPerUpload: Number(run.mainCpuMsPerUpload.toFixed(3)) }),
    };
    if (!sink) return result;
    const drainStart = performance.now();
    while ((await headers()) < run.totalAccepted && performance.now() - drainStart < DRAIN_LIMIT_MS) await new Promise((r) => setTimeout(r, 50));
    const tally = await sink.tally();
    return {
      ...result,
      backlog: run.backlog.map(([t, n]) => [Number(t.toFixed(1)), n]),
      drainSeconds: Number(((performance.now() - drainStart) / 1000).toFixed(2)),
      posts: tally.posts,
      headers: tally.headers,
      refused: tally.refused,
    };
  } finally {
    await service.stop();
    await sink?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[], digits = 2) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2).toFixed(digits));
};
const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

async function main() {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });
  // each run its own items, enough for it: a receipt costs one RSA-4096 signature, so no run passes
  // the signing capacity (with room for the neighbours' load to drop)
  const capacity = await measureSigningCapacity({ seconds: 3 });
  const perRun = Math.ceil(capacity.perSecond * 1.5 * (seconds + warmupSeconds)) + concurrency;
  process.stderr.write(`pre-signing ${perRun * MODES.length * rounds} items of 1024 bytes...\n`);
  const items = await presignItems(jwk, perRun * MODES.length * rounds, 1024, 1);
  const runs: Run[] = [];
  const label = { none: 'bridge off, GraphQL off', graphql: 'bridge off, GraphQL on ', both: 'bridge on,  GraphQL on ' };
  for (let round = 0; round < rounds; round++) {
    // rotating which goes first, so no mode always gets the same part of the run
    for (const mode of MODES.map((_, i) => MODES[(i + round) % MODES.length]!)) {
      const at = runs.length * perRun;
      const run = await runOnce(mode, items.slice(at, at + perRun));
      process.stderr.write(
        `  ${label[mode]}: ${run.uploadsPerSecond} uploads/s, ${run.cpuMsPerUpload ?? '?'} CPU ms per upload (main thread ${run.mainCpuMsPerUpload ?? '?'}), errors ${run.errors}\n`,
      );
      runs.push(run);
    }
  }
  const on = runs.filter((r) => r.mode === 'both');
  const off = runs.filter((r) => r.mode === 'graphql');
  const none = runs.filter((r) => r.mode === 'none');
  const noneRate = median(none.map((r) => r.uploadsPerSecond));
  const cpuOf = (rs: Run[]) => (rs.every((r) => r.cpuMsPerUpload !== undefined) ? median(rs.map((r) => r.cpuMsPerUpload!)) : undefined);
  const [cpuOn, cpuNone] = [cpuOf(on), cpuOf(none)];
  const mainOf = (rs: Run[]) =>
    rs.every((r) => r.mainCpuMsPerUpload !== undefined)
      ? median(
          rs.map((r) => r.mainCpuMsPerUpload!),
          3,
        )
      : undefined;
  const [mainOn, mainOff, mainNone] = [mainOf(on), mainOf(off), mainOf(none)];
  const onRate = median(on.map((r) => r.uploadsPerSecond));
  const offRate = median(off.map((r) => r.uploadsPerSecond));
  const last = on[on.length - 1]!;
  const samples = last.backlog ?? [];
  const third = Math.max(1, Math.floor(samples.length / 3));
  const result = {
    benchmark: 'optical-bridge',
    seconds,
    concurrency,
    rounds,
    uploadsPerSecondBridgeOff: offRate,
    uploadsPerSecondBridgeOn: onRate,
    ratio: Number((onRate / offRate).toFixed(3)),
    ...(on.every((r) => r.cpuMsPerUpload !== undefined) &&
      off.every((r) => r.cpuMsPerUpload !== undefined) && {
        cpuMsPerUploadBridgeOn: median(on.map((r) => r.cpuMsPerUpload!)),
        cpuMsPerUploadBridgeOff: median(off.map((r) => r.cpuMsPerUpload!)),
        // CPU per upload moves much less than rates with the neighbours' load on a shared machine
        cpuRatio: Number((median(off.map((r) => r.cpuMsPerUpload!)) / median(on.map((r) => r.cpuMsPerUpload!))).toFixed(3)),
      }),
    // issue 36: the bridge and the GraphQL read model both on, over both off
    uploadsPerSecondAllOff: noneRate,
    allRatio: Number((onRate / noneRate).toFixed(3)),
    allRatioMet: onRate / noneRate >= ALL_TARGET,
    ...(cpuOn !== undefined && cpuNone !== undefined && { cpuMsPerUploadAllOff: cpuNone, allCpuRatio: Number((cpuNone / cpuOn).toFixed(3)) }),
    // the main thread's CPU per upload in each mode: what the bridge and the projection add to the event loop
    ...(mainOn !== undefined &&
      mainOff !== undefined &&
      mainNone !== undefined && { mainCpuMsPerUpload: { both: mainOn, graphqlOnly: mainOff, none: mainNone } }),
    backlogFirstThird: Number(mean(samples.slice(0, third).map(([, n]) => n)).toFixed(1)),
    backlogLastThird: Number(mean(samples.slice(-third).map(([, n]) => n)).toFixed(1)),
    backlogPeak: Math.max(0, ...samples.map(([, n]) => n)),
    drainSeconds: last.drainSeconds,
    postsPerSecond: Number(((last.posts ?? 0) / seconds).toFixed(1)),
    headersPerPost: Number(((last.headers ?? 0) / Math.max(1, last.posts ?? 0)).toFixed(1)),
    refused: last.refused,
    errors: runs.reduce((a, r) => a + r.errors, 0),
    backlog: samples,
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  process.stdout.write(
    `optical bridge: ${onRate} uploads/s with it on, ${offRate} off, ratio ${result.ratio} (${concurrency} clients, ${seconds} s); ` +
      `CPU per upload ${result.cpuMsPerUploadBridgeOn ?? '?'} ms on, ${result.cpuMsPerUploadBridgeOff ?? '?'} ms off (ratio ${result.cpuRatio ?? '?'}); ` +
      `backlog ${result.backlogFirstThird} items in the first third, ${result.backlogLastThird} in the last, peak ${result.backlogPeak}, ` +
      `drained ${result.drainSeconds} s after the load; ${result.postsPerSecond} posts/s, ${result.headersPerPost} headers per post, ` +
      `${result.refused} refused, ${result.errors} upload errors\n` +
      `bridge and GraphQL both on: ${onRate} uploads/s, both off: ${noneRate}, ratio ${result.allRatio} (target ${ALL_TARGET}: ${result.allRatioMet ? 'met' : 'NOT met'}); ` +
      `CPU per upload ${cpuOn ?? '?'} ms on, ${cpuNone ?? '?'} ms off (ratio ${result.allCpuRatio ?? '?'}); ` +
      `main thread's ${mainOn ?? '?'} ms both on, ${mainOff ?? '?'} GraphQL alone, ${mainNone ?? '?'} both off\n` +
      `backlog over time (s, items): ${samples.map(([t, n]) => `${t}:${n}`).join(' ')}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});

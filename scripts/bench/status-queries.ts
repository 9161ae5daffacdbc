/**
 * Status queries under load: the service (a child process, as `npm start` runs it) holding a few
 * thousand accepted items; many concurrent clients ask `GET /v1/tx/:id/status` of random known ids
 * while new items are uploaded alongside at a fixed rate (`--upload-rate`, 50 a second by default,
 * at most `--upload-clients` at once). A fixed rate keeps the load the same from one version of the
 * service to the next: with clients uploading as fast as they can (`--upload-rate 0`), faster uploads
 * make a heavier load, and the queries' share of the cores smaller. Prints queries/s, p50/p99 latency
 * and errors (anything but a 200 with a JSON status), and the ratio to a baseline measured in the
 * same run: the same clients against a bare `node:http` server (also a child process) answering
 * the same JSON body, which is what the client and the loopback alone can do on this machine; and,
 * on Linux, the CPU each server's process spent per answered query (the service's with the work of
 * the uploads alongside).
 *
 *   npx tsx scripts/bench/status-queries.ts [--items 3000] [--seconds 10] [--concurrency 64] [--rounds 3]
 *                                           [--upload-rate 50] [--upload-clients 4] [--json]
 *
 * Each of `--rounds` rounds measures the service under the upload load, then the bare server, and
 * takes their ratio; the ratio printed is the median round's (its figures too), every round's is in
 * `ratios`: on a shared machine one window of 10 s says little.
 *
 * Items are signed before any timing (arweave, ethereum and solana signers in turn, 1 KiB each);
 * the upload load has its own pool of items and stops early if it runs out (reported).
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServiceProcess } from '../lib/serviceProcess.js';
import { startBareServer } from './lib/bareServer.js';
import { closedLoop, keepAliveAgent, pacedLoop, send, Tally } from './lib/httpLoad.js';
import { cycleKinds, signMixedItems } from './lib/mixedItems.js';
import { emitJson, round, say } from './lib/output.js';
import { processCpuMs } from './lib/processCpu.js';
import { median } from './lib/stats.js';
import { benchGatewayUrl } from './lib/heightGateway.js';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
    'upload-rate': { type: 'string', default: '50' },
    'upload-clients': { type: 'string', default: '4' },
    json: { type: 'boolean', default: false },
  },
});
const items = Number(values.items);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const uploadRate = Number(values['upload-rate']);
const uploadClients = Number(values['upload-clients']);
if (!(uploadRate >= 0) || !(uploadClients >= 1) || !Number.isInteger(rounds) || rounds < 1) {
  throw new Error('--upload-rate must be 0 or more, --upload-clients and --rounds 1 or more');
}
const PAYLOAD_BYTES = 1024;
/** the upload load's pool: enough for a few hundred uploads/s over the window */
const uploadPool = Math.ceil(rounds * seconds * Math.max(150, uploadRate * 1.2));

interface Window {
  /** the queries' figures over the window */
  summary: ReturnType<Tally['summary']>;
  seconds: number;
  /** CPU ms the server's process spent over the window (Linux), all its threads */
  serverCpuMs?: number;
}

/** `concurrency` clients asking the status of random known ids at `base` for `seconds` */
async function queryLoad(base: string, ids: string[], serverPid: number | undefined): Promise<Window> {
  const agent = keepAliveAgent(concurrency);
  const tally = new Tally();
  const cpuBefore = await processCpuMs(serverPid);
  const started = performance.now();
  await closedLoop(concurrency, started + seconds * 1000, async () => {
    const id = ids[Math.floor(Math.random() * ids.length)]!;
    const t0 = performance.now();
    try {
      const answer = await send(agent, `${base}/v1/tx/${id}/status`, 'GET');
      const ok = answer.status === 200 && typeof (JSON.parse(answer.body.toString()) as { status?: unknown }).status === 'string';
      if (ok) tally.ok(performance.now() - t0);
      else tally.fail(`${answer.status} ${answer.body.toString().slice(0, 100)}`);
    } catch (error) {
      tally.fail(error instanceof Error ? error.message : String(error));
    }
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = await processCpuMs(serverPid);
  agent.destroy();
  return {
    summary: tally.summary(elapsed),
    seconds: elapsed,
    ...(cpuBefore !== undefined && cpuAfter !== undefined ? { serverCpuMs: cpuAfter - cpuBefore } : {}),
  };
}

/** µs of the server's CPU per answered query over the window; undefined where it was not measured */
function cpuPerQuery({ summary, serverCpuMs }: Window): number | undefined {
  const answered = summary.requests - summary.errors;
  return serverCpuMs === undefined || answered === 0 ? undefined : round((serverCpuMs * 1000) / answered, 1);
}

async function main(): Promise<void> {
  const workDir = process.env.BENCH_DIR ?? '.bench';
  await mkdir(workDir, { recursive: true });
  const dataDir = await mkdtemp(join(workDir, 'status-queries-'));
  const clientJwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });
  say(`signing ${items} items to store and ${uploadPool} for the upload load...`);
  const signed = await signMixedItems(clientJwk, cycleKinds(items + uploadPool), PAYLOAD_BYTES);
  const seed = signed.slice(0, items);
  const pool = signed.slice(items);
  const service = await startServiceProcess({ DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), LOG_LEVEL: 'error' });
  try {
    say(`uploading ${items} items...`);
    const ids: string[] = [];
    const seedAgent = keepAliveAgent(32);
    let next = 0;
    await closedLoop(32, Infinity, async () => {
      const item = seed[next++];
      if (!item) return false;
      const answer = await send(seedAgent, `${service.url}/v1/tx`, 'POST', item.raw);
      if (answer.status !== 200) throw new Error(`seeding upload answered ${answer.status}: ${answer.body.toString()}`);
      ids.push((JSON.parse(answer.body.toString()) as { id: string }).id);
    });
    seedAgent.destroy();
    const sampleAgent = keepAliveAgent(1);
    const sample = await send(sampleAgent, `${service.url}/v1/tx/${ids[0]}/status`, 'GET');
    sampleAgent.destroy();
    if (sample.status !== 200) throw new Error(`status of a stored item answered ${sample.status}: ${sample.body.toString()}`);

    const uploadLoad = uploadRate > 0 ? `${uploadRate} uploads/s (at most ${uploadClients} at once)` : `${uploadClients} clients uploading as fast as they can`;
    const uploads = new Tally();
    let nextUpload = 0;
    let poolRanOut = false;
    let uploadSeconds = 0;
    const upload = (agent: ReturnType<typeof keepAliveAgent>) => async () => {
      const item = pool[nextUpload++];
      if (!item) {
        poolRanOut = true;
        return false;
      }
      const t0 = performance.now();
      try {
        const answer = await send(agent, `${service.url}/v1/tx`, 'POST', item.raw);
        if (answer.status === 200) uploads.ok(performance.now() - t0);
        else uploads.fail(`${answer.status} ${answer.body.toString().slice(0, 100)}`);
      } catch (error) {
        uploads.fail(error instanceof Error ? error.message : String(error));
      }
    };
    // each round: the service under the upload load, then the bare server beside it (the machine's
    // speed drifts: a ratio is judged against the baseline measured next to it)
    const runs: { service: Window; bare: Window; ratio: number }[] = [];
    for (let round = 1; round <= rounds; round++) {
      say(`round ${round} of ${rounds}: querying with ${concurrency} clients for ${seconds} s while ${uploadLoad}...`);
      const uploadAgent = keepAliveAgent(uploadClients);
      const deadline = performance.now() + seconds * 1000;
      const step = upload(uploadAgent);
      const uploading = uploadRate > 0 ? pacedLoop(uploadRate, uploadClients, deadline, step) : closedLoop(uploadClients, deadline, step);
      const loaded = await queryLoad(service.url, ids, service.process.pid);
      await uploading;
      uploadAgent.destroy();
      uploadSeconds += loaded.seconds;

      say(`round ${round} of ${rounds}: baseline, the same clients against a bare node:http server answering the same body...`);
      const bare = await startBareServer(sample.body.toString());
      let baseline: Window;
      try {
        baseline = await queryLoad(bare.url, ids, bare.pid);
      } finally {
        await bare.close();
      }
      runs.push({ service: loaded, bare: baseline, ratio: loaded.summary.perSecond / baseline.summary.perSecond });
    }

    // the round of the median ratio gives the figures; every round's ratio is kept
    const middleRatio = median(runs.map((r) => r.ratio));
    const middle = runs.find((r) => r.ratio === middleRatio) ?? runs[0]!;
    const service_ = middle.service.summary;
    const bare_ = middle.bare.summary;
    const uploads_ = uploads.summary(uploadSeconds);
    const result = {
      benchmark: 'status-queries',
      items,
      concurrency,
      seconds: round(middle.service.seconds, 2),
      rounds,
      queriesPerSecond: service_.perSecond,
      p50Ms: service_.p50Ms,
      p99Ms: service_.p99Ms,
      errors: runs.reduce((sum, r) => sum + r.service.summary.errors, 0),
      ...(service_.errorSamples ? { errorSamples: service_.errorSamples } : {}),
      uploadClients,
      uploadRate: uploadRate > 0 ? uploadRate : null,
      uploadsPerSecond: uploads_.perSecond,
      uploadErrors: uploads_.errors,
      uploadPoolRanOut: poolRanOut,
      baseline: 'the same clients against a bare node:http server answering the same JSON',
      baselineQueriesPerSecond: bare_.perSecond,
      baselineP99Ms: bare_.p99Ms,
      baselineErrors: runs.reduce((sum, r) => sum + r.bare.summary.errors, 0),
      ratio: round(middle.ratio, 3),
      ratios: runs.map((r) => round(r.ratio, 3)),
      // CPU of the server's process per answered query over the median round's window (the service's
      // includes the uploads alongside): how much of the cores each server took, which the rates do not say
      serviceCpuUsPerQuery: cpuPerQuery(middle.service),
      baselineCpuUsPerQuery: cpuPerQuery(middle.bare),
    };
    say(
      `status queries: ${result.queriesPerSecond}/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, errors ${result.errors} ` +
        `(${concurrency} clients, ${items} items, ${result.uploadsPerSecond} uploads/s alongside${poolRanOut ? ', upload pool ran out' : ''})`,
    );
    say(
      `bare node:http, same body: ${result.baselineQueriesPerSecond}/s, p99 ${result.baselineP99Ms} ms; ratio ${result.ratio} (rounds: ${result.ratios.join(', ')})`,
    );
    if (result.serviceCpuUsPerQuery !== undefined && result.baselineCpuUsPerQuery !== undefined) {
      say(`CPU per query: the service ${result.serviceCpuUsPerQuery} µs (with the uploads alongside), the bare server ${result.baselineCpuUsPerQuery} µs`);
    }
    emitJson(result);
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

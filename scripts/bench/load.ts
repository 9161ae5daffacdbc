/**
 * Mixed load: 200 keep-alive connections (one client loop each) for 60 s against the service (a
 * child process, as `npm start` runs it), each loop picking its next request at random from a mix
 * of uploads and queries:
 *
 *   upload      27%  `POST /v1/tx`, 1 KiB items signed by arweave, ethereum and solana keys in turn
 *   multipart    1%  create, 4 chunks of 16 KiB (64 KiB item, arweave), synchronous finalize
 *   info        10%  `GET /v1/info`
 *   status      30%  `GET /v1/tx/:id/status` of a random item stored so far
 *   offsets     14%  `GET /v1/tx/:id/offsets` (200, or 404 `TX doesn't exist` while unbundled)
 *   balance     18%  `GET /v1/account/balance/:address` of the arweave client
 *
 * Reports requests/s, p50/p99 per kind and errors: any status other than the expected one, or a
 * network error. Target: zero errors. Items are signed before the clock starts (signing during the
 * run would take the cores the service needs); when the pool runs out, uploads turn into status
 * queries and the report says when.
 *
 * The service runs with its defaults, so at most 64 uploads in flight per client address: the
 * connections are spread over several loopback addresses (127.0.0.1, 127.0.0.2, ...; 50 each, as
 * Linux routes all of 127/8 to loopback), as many clients would be, rather than lifting the limit.
 *
 *   npx tsx scripts/bench/load.ts [--seconds 60] [--connections 200] [--json]
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServiceProcess } from '../lib/serviceProcess.js';
import { Agent } from 'node:http';
import { closedLoop, send, Tally } from './lib/httpLoad.js';
import { cycleKinds, signMixedItems } from './lib/mixedItems.js';
import { emitJson, round, say } from './lib/output.js';
import { benchGatewayUrl } from './lib/heightGateway.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

const MIX = [
  ['upload', 27],
  ['multipart', 1],
  ['info', 10],
  ['status', 30],
  ['offsets', 14],
  ['balance', 18],
] as const;
type Kind = (typeof MIX)[number][0];
const MIX_TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0);
const pick = (): Kind => {
  let r = Math.random() * MIX_TOTAL;
  for (const [kind, weight] of MIX) if ((r -= weight) < 0) return kind;
  return 'status';
};

const SMALL_PAYLOAD = 1024;
const MULTIPART_PAYLOAD = 64 * 1024 - 1200;
const CHUNK = 16 * 1024;
/** pools sized for what this service sustains on a small machine, with room to spare */
const singlePool = Math.ceil(seconds * 350);
const multipartPool = Math.ceil(seconds * 10);
const SEEDED = 100;
/** connections per client address: under the service's 64 uploads in flight per client */
const PER_ADDRESS = 50;

const jsonOf = (body: Buffer) => JSON.parse(body.toString()) as Record<string, unknown>;

async function main(): Promise<void> {
  const workDir = process.env.BENCH_DIR ?? '.bench';
  await mkdir(workDir, { recursive: true });
  const dataDir = await mkdtemp(join(workDir, 'load-'));
  const clientJwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });
  const address = createHash('sha256').update(Buffer.from(clientJwk.n!, 'base64url')).digest('base64url');
  say(`signing ${singlePool + SEEDED} small items and ${multipartPool} multi-part items...`);
  const small = await signMixedItems(clientJwk, cycleKinds(singlePool + SEEDED), SMALL_PAYLOAD);
  const large = await signMixedItems(clientJwk, cycleKinds(multipartPool, ['arweave']), MULTIPART_PAYLOAD);
  const service = await startServiceProcess({ DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), LOG_LEVEL: 'error' });
  const agents = Array.from(
    { length: Math.ceil(connections / PER_ADDRESS) },
    (_, i) => new Agent({ keepAlive: true, maxSockets: PER_ADDRESS, localAddress: `127.0.0.${i + 1}` }),
  );
  try {
    const url = (path: string) => `${service.url}/v1${path}`;
    const ids: string[] = [];
    for (const item of small.splice(0, SEEDED)) {
      const answer = await send(agents[0]!, url('/tx'), 'POST', item.raw);
      if (answer.status !== 200) throw new Error(`seeding upload answered ${answer.status}: ${answer.body.toString()}`);
      ids.push(jsonOf(answer.body).id as string);
    }
    const randomId = () => ids[Math.floor(Math.random() * ids.length)]!;
    const tallies = Object.fromEntries(MIX.map(([kind]) => [kind, new Tally()])) as Record<Kind, Tally>;
    /** a multi-part upload's steps, timed one by one: where its time goes */
    const steps = { create: new Tally(), chunk: new Tally(), finalize: new Tally() };
    const step = async <T>(tally: Tally, run: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const result = await run();
      tally.ok(performance.now() - t0);
      return result;
    };
    let poolRanOut: number | undefined;
    let multipartRanOut: number | undefined;

    /** one request (a multi-part upload: its whole sequence); throws what counts as an error */
    const run: Record<Kind, (agent: Agent) => Promise<void>> = {
      async upload(agent) {
        const item = small.pop()!;
        const answer = await send(agent, url('/tx'), 'POST', item.raw);
        if (answer.status !== 200) throw new Error(`POST /tx (${item.kind}) answered ${answer.status} ${answer.body.toString().slice(0, 100)}`);
        ids.push(jsonOf(answer.body).id as string);
      },
      async multipart(agent) {
        const item = large.pop()!;
        const created = await step(steps.create, () => send(agent, url(`/chunks/arweave/-1/-1?chunkSize=${CHUNK}`), 'GET'));
        if (created.status !== 200) throw new Error(`create answered ${created.status} ${created.body.toString().slice(0, 100)}`);
        const uploadId = jsonOf(created.body).id as string;
        for (let offset = 0; offset < item.raw.length; offset += CHUNK) {
          const chunk = item.raw.subarray(offset, offset + CHUNK);
          const answer = await step(steps.chunk, () => send(agent, url(`/chunks/arweave/${uploadId}/${offset}`), 'POST', chunk));
          if (answer.status !== 200) throw new Error(`chunk ${offset} answered ${answer.status} ${answer.body.toString().slice(0, 100)}`);
        }
        const finalized = await step(steps.finalize, () => send(agent, url(`/chunks/arweave/${uploadId}/-1`), 'POST', Buffer.alloc(0)));
        if (finalized.status !== 200) throw new Error(`finalize answered ${finalized.status} ${finalized.body.toString().slice(0, 100)}`);
        ids.push(jsonOf(finalized.body).id as string);
      },
      async info(agent) {
        const answer = await send(agent, url('/info'), 'GET');
        if (answer.status !== 200) throw new Error(`GET /info answered ${answer.status}`);
      },
      async status(agent) {
        const answer = await send(agent, url(`/tx/${randomId()}/status`), 'GET');
        if (answer.status !== 200) throw new Error(`GET status answered ${answer.status} ${answer.body.toString().slice(0, 100)}`);
      },
      async offsets(agent) {
        const answer = await send(agent, url(`/tx/${randomId()}/offsets`), 'GET');
        const unbundled = answer.status === 404 && answer.body.toString() === "TX doesn't exist";
        if (answer.status !== 200 && !unbundled) throw new Error(`GET offsets answered ${answer.status} ${answer.body.toString().slice(0, 100)}`);
      },
      async balance(agent) {
        const answer = await send(agent, url(`/account/balance/${address}`), 'GET');
        if (answer.status !== 200) throw new Error(`GET balance answered ${answer.status} ${answer.body.toString().slice(0, 100)}`);
      },
    };

    say(`${connections} connections for ${seconds} s... (${small.length} small items in the pool)`);
    const started = performance.now();
    await closedLoop(connections, started + seconds * 1000, async (client) => {
      let kind = pick();
      if (kind === 'upload' && small.length === 0) {
        poolRanOut ??= (performance.now() - started) / 1000;
        kind = 'status';
      }
      if (kind === 'multipart' && large.length === 0) {
        multipartRanOut ??= (performance.now() - started) / 1000;
        kind = 'status';
      }
      const t0 = performance.now();
      try {
        await run[kind](agents[client % agents.length]!);
        tallies[kind].ok(performance.now() - t0);
      } catch (error) {
        tallies[kind].fail(error instanceof Error ? error.message : String(error));
      }
    });
    const elapsed = (performance.now() - started) / 1000;
    const kinds = Object.fromEntries(MIX.map(([kind]) => [kind, tallies[kind].summary(elapsed)]));
    const requests = Object.values(kinds).reduce((sum, k) => sum + k.requests, 0);
    const errors = Object.values(kinds).reduce((sum, k) => sum + k.errors, 0);
    const result = {
      benchmark: 'load',
      connections,
      seconds: round(elapsed, 2),
      requests,
      requestsPerSecond: round(requests / elapsed),
      errors,
      kinds,
      multipartSteps: Object.fromEntries(Object.entries(steps).map(([name, tally]) => [name, tally.summary(elapsed)])),
      uploadPoolRanOutAtSeconds: poolRanOut === undefined ? null : round(poolRanOut),
      multipartPoolRanOutAtSeconds: multipartRanOut === undefined ? null : round(multipartRanOut),
    };
    say(`${requests} requests in ${result.seconds} s: ${result.requestsPerSecond}/s, errors ${errors}`);
    for (const [kind, k] of Object.entries(kinds)) {
      say(
        `  ${kind.padEnd(10)} ${String(k.perSecond).padStart(7)}/s  p50 ${k.p50Ms} ms  p99 ${k.p99Ms} ms  errors ${k.errors}${k.errorSamples ? `: ${k.errorSamples.join(' | ')}` : ''}`,
      );
    }
    for (const [name, k] of Object.entries(result.multipartSteps)) say(`    multipart ${name.padEnd(8)} p50 ${k.p50Ms} ms  p99 ${k.p99Ms} ms`);
    if (poolRanOut !== undefined) say(`the single-upload pool ran out at ${round(poolRanOut)} s: those uploads turned into status queries after that`);
    if (multipartRanOut !== undefined) say(`the multi-part pool ran out at ${round(multipartRanOut)} s: those uploads turned into status queries after that`);
    emitJson(result);
  } finally {
    for (const agent of agents) agent.destroy();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

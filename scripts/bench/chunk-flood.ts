/**
 * A bystander's multi-part uploads while another client floods the service with the smallest
 * chunks it takes (issue 17: each chunk of such a flood once cost more than the one before; see
 * docs/decisions.md). Two phases of the same length in one run: the
 * bystander alone (the baseline), then the bystander under the flood; prints both rates and their ratio.
 *
 *   npx tsx scripts/bench/chunk-flood.ts [--seconds 15] [--chunk-bytes 2500] [--flooders 8] [--prefill 5000] [--url http://host:port]
 *
 * The flood comes from 127.0.0.2 (another client, as far as per-client limits go); before the first
 * phase it fills its upload with `--prefill` chunks, so the flood goes on into an upload that already
 * holds thousands. Without --url it starts the service (src/main.ts) in a child process on a fresh
 * data directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from 'node:http';
import { ArweaveSigner, createData } from 'arbundles';
import { generateKeyPairSync } from 'node:crypto';
import { closedLoop, send, Tally } from './lib/httpLoad.js';
import { startServiceProcess } from '../lib/serviceProcess.js';
import { benchGatewayUrl } from './lib/heightGateway.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    'chunk-bytes': { type: 'string', default: '2500' },
    flooders: { type: 'string', default: '8' },
    bystanders: { type: 'string', default: '4' },
    prefill: { type: 'string', default: '5000' },
    url: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const chunkBytes = Number(values['chunk-bytes']);
const flooders = Number(values.flooders);
const bystanders = Number(values.bystanders);

async function main() {
  let dataDir: string | undefined;
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  let base = values.url;
  if (!base) {
    dataDir = await mkdtemp(join(tmpdir(), 'bench-chunk-flood-'));
    service = await startServiceProcess({ DATA_DIR: dataDir, GATEWAY_URL: await benchGatewayUrl(), LOG_LEVEL: 'error', MAX_OPEN_UPLOADS_PER_CLIENT: '100000' });
    base = service.url;
  }
  const jwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });
  const signer = new ArweaveSigner(jwk as never);
  const bystander = new Agent({ keepAlive: true, maxSockets: bystanders });
  const flooder = new Agent({ keepAlive: true, maxSockets: flooders, localAddress: '127.0.0.2' });

  async function upload(tally: Tally, deadline: number) {
    await closedLoop(bystanders, deadline, async () => {
      const item = createData(Buffer.alloc(4096, Math.random() * 256), signer);
      await item.sign(signer);
      const t0 = performance.now();
      const created = await send(bystander, `${base}/chunks/arweave/-1/-1`, 'GET');
      if (created.status !== 200) return tally.fail(`create ${created.status}`);
      const { id } = JSON.parse(created.body.toString()) as { id: string };
      const chunk = await send(bystander, `${base}/chunks/arweave/${id}/0`, 'POST', item.getRaw());
      if (chunk.status !== 200) return tally.fail(`chunk ${chunk.status}`);
      const done = await send(bystander, `${base}/chunks/arweave/${id}/-1`, 'POST');
      if (done.status !== 200) return tally.fail(`finalize ${done.status}`);
      tally.ok(performance.now() - t0);
    });
  }

  // the flood: chunks of `chunkBytes` at ever further offsets of one upload, a new upload when refused
  let flooded = 0;
  let refused = 0;
  let id = '';
  let offset = 0;
  const body = Buffer.alloc(chunkBytes);
  const next = async () => {
    const created = await send(flooder, `${base}/chunks/arweave/-1/-1`, 'GET');
    id = JSON.parse(created.body.toString()).id;
    offset = 0;
  };
  const flood = (until: () => boolean) =>
    Promise.all(
      Array.from({ length: flooders }, async () => {
        while (!until()) {
          const at = (offset += chunkBytes) - chunkBytes;
          const res = await send(flooder, `${base}/chunks/arweave/${id}/${at}`, 'POST', body).catch(() => ({ status: 0 }));
          if (res.status === 200) flooded++;
          else {
            refused++;
            if (res.status === 400) await next();
          }
        }
      }),
    );
  await next();
  const prefill = Number(values.prefill);
  await flood(() => flooded >= prefill);
  process.stderr.write(`prefilled: ${flooded} chunks stored, ${refused} refused\n`);

  const alone = new Tally();
  let start = performance.now();
  await upload(alone, start + seconds * 1000);
  const aloneSeconds = (performance.now() - start) / 1000;

  let stop = false;
  const prefilled = flooded;
  const flooding = flood(() => stop);
  const underFlood = new Tally();
  start = performance.now();
  await upload(underFlood, start + seconds * 1000);
  const floodSeconds = (performance.now() - start) / 1000;
  stop = true;
  await flooding;
  bystander.destroy();
  flooder.destroy();
  await service?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });

  const a = alone.summary(aloneSeconds);
  const b = underFlood.summary(floodSeconds);
  const result = {
    benchmark: 'chunk-flood',
    chunkBytes,
    flooders,
    bystanders,
    bystanderAlone: a,
    bystanderUnderFlood: b,
    prefilledChunks: prefilled,
    floodChunksStored: flooded - prefilled,
    floodChunksRefused: refused,
    ratio: Number((b.perSecond / a.perSecond).toFixed(3)),
  };
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
  else {
    process.stdout.write(
      `bystander multi-part uploads: alone ${a.perSecond}/s (p99 ${a.p99Ms} ms), under a flood of ${chunkBytes}-byte chunks ` +
        `into an upload of ${prefilled} (${flooded - prefilled} stored, ${refused} refused) ${b.perSecond}/s (p99 ${b.p99Ms} ms), errors ${a.errors}/${b.errors}; ratio ${result.ratio}\n`,
    );
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

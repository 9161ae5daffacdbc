/**
 * Posting a bundle to a gateway far away: the same bundle's chunks posted as the bundler posts
 * them (`postChunks`: BUNDLE_CHUNK_CONCURRENCY at a time, each re-read by range and hash-checked,
 * through the service's gateway adapter) to the sink gateway (another process, answers 200, keeps
 * nothing) behind a latency proxy (a third process) that adds 50, 100 and 200 ms to every round
 * trip. The baseline, in the same run: the same posting through the proxy adding nothing.
 *
 * Prints MiB/s at each latency, its ratio to the baseline, and the poster's peak RSS (VmHWM) while
 * posting, with how far above the RSS at the start of that run it went. Default bundle: 2 signed
 * items of 128 MiB (256 MiB, 1024 chunks). BENCH_CHUNK_CONCURRENCY (a list) measures other
 * concurrencies than BUNDLE_CHUNK_CONCURRENCY's default, each against its own baseline; the JSON
 * line reports the last.
 *
 *   npx tsx scripts/bench/far-gateway.ts
 *   BENCH_CHUNK_CONCURRENCY=1,4,8,16,32 BENCH_LATENCIES_MS=100 BENCH_ITEM_MIB=16 npx tsx scripts/bench/far-gateway.ts
 *   npx tsx scripts/bench/far-gateway.ts --json        # the figures as one JSON line on stdout
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { bundleLayout, PostedChunks, postChunks, prepareBundle, type BlobEntry } from '../../src/bundling/index.js';
import { parseConfig } from '../../src/config.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { loadTestJwk } from '../../test/fixtures/testWallet.js';
import { startLatencyProxy } from './lib/latencyProxy.js';
import { emitJson, round, say } from './lib/output.js';
import { peakRssMiB } from './lib/peakRss.js';
import { positiveIntEnv } from './lib/settings.js';
import { putSignedItem } from './lib/signedItemBlob.js';
import { startSinkGateway, type SinkGateway } from './lib/sinkGateway.js';

const MiB = 1024 * 1024;
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

/** VmHWM back to the current RSS (Linux: "5" to clear_refs), so each run's peak is its own */
const resetPeakRss = () =>
  writeFile('/proc/self/clear_refs', '5').then(
    () => true,
    () => false,
  );

/** a comma-separated list of non-negative integers from the environment, or the fallback */
function listEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.length === 0 || values.some((v) => !Number.isSafeInteger(v) || v < 0)) throw new Error(`${name} must be a list of non-negative integers`);
  return values;
}

interface Run {
  latencyMs: number;
  concurrency: number;
  MiBps: number;
  peakRssMiB: number;
  /** the RSS when the run started: the peak above it is what posting held */
  startRssMiB: number;
}

/** the current resident set size of this process, in MiB (Linux: VmRSS) */
async function rssMiB(): Promise<number> {
  const status = await readFile('/proc/self/status', 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

async function main(): Promise<void> {
  const items = positiveIntEnv('BENCH_ITEMS', 2);
  const itemMiB = positiveIntEnv('BENCH_ITEM_MIB', 128);
  const latencies = listEnv('BENCH_LATENCIES_MS', [50, 100, 200]);
  const concurrencies = listEnv('BENCH_CHUNK_CONCURRENCY', [parseConfig({}).bundler.chunkConcurrency]);
  const dir = process.env.BENCH_DIR ?? '.bench';
  await mkdir(dir, { recursive: true });
  const root = await mkdtemp(join(dir, 'far-gateway-'));
  const store = await openFsBlobStore({ root, staleTempAfterMs: 0 });
  const sink = await startSinkGateway();
  try {
    const entries: BlobEntry[] = [];
    for (let i = 0; i < items; i++) {
      const { id, size } = await putSignedItem(store, itemMiB * MiB);
      entries.push({ id, size, blobKey: `items/${id}` });
    }
    const layout = bundleLayout(entries);
    const { tree } = await prepareBundle({ blobStore: store, layout, jwk: loadTestJwk(), anchor: 'a'.repeat(64), reward: '1' });
    const size = layout.totalSize / MiB;
    say(`bundle of ${items} signed items of ${itemMiB} MiB: ${size.toFixed(0)} MiB, ${tree.chunkCount} chunks`);

    const peaksReset = await resetPeakRss();
    const runs: Run[] = [];
    for (const concurrency of concurrencies) {
      for (const latencyMs of [0, ...latencies]) {
        await resetPeakRss();
        const startRssMiB = await rssMiB();
        const started = process.hrtime.bigint();
        await postThrough(sink, latencyMs, { store, layout, tree, concurrency });
        const run = { latencyMs, concurrency, MiBps: size / seconds(started), peakRssMiB: await peakRssMiB(process.pid), startRssMiB };
        runs.push(run);
        const baseline = runs.find((r) => r.concurrency === concurrency && r.latencyMs === 0)!;
        say(
          `${String(concurrency).padStart(3)} at once, ${String(latencyMs).padStart(3)} ms round trip: ${run.MiBps.toFixed(1).padStart(6)} MiB/s` +
            `  ratio to 0 ms ${(run.MiBps / baseline.MiBps).toFixed(3)}  peak RSS ${run.peakRssMiB.toFixed(0)} MiB (${(run.peakRssMiB - run.startRssMiB).toFixed(0)} above the start)`,
        );
      }
    }
    const concurrency = concurrencies[concurrencies.length - 1]!;
    const of = (latencyMs: number) => runs.find((r) => r.concurrency === concurrency && r.latencyMs === latencyMs);
    const baseline = of(0)!;
    emitJson({
      benchmark: 'far-gateway',
      bytes: layout.totalSize,
      chunks: tree.chunkCount,
      concurrency,
      baseline: 'the same posting through the proxy adding 0 ms',
      baselineMiBps: round(baseline.MiBps),
      latencies: Object.fromEntries(latencies.map((ms) => [`${ms}ms`, { MiBps: round(of(ms)!.MiBps), ratio: round(of(ms)!.MiBps / baseline.MiBps, 3) }])),
      peakRssMiB: round(Math.max(...runs.map((r) => r.peakRssMiB)), 0),
      peakRssAboveStartMiB: round(Math.max(...runs.map((r) => r.peakRssMiB - r.startRssMiB)), 0),
      peakRssScope: peaksReset ? 'posting' : 'whole process',
      runs: runs.map((r) => ({ ...r, MiBps: round(r.MiBps), peakRssMiB: round(r.peakRssMiB, 0), startRssMiB: round(r.startRssMiB, 0) })),
    });
  } finally {
    await sink.close();
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** every chunk of the bundle posted through a fresh proxy (new connections, so each handshake pays the round trip) */
async function postThrough(
  sink: SinkGateway,
  latencyMs: number,
  {
    store,
    layout,
    tree,
    concurrency,
  }: { store: BlobStore; layout: ReturnType<typeof bundleLayout<BlobEntry>>; tree: Awaited<ReturnType<typeof prepareBundle>>['tree']; concurrency: number },
): Promise<void> {
  const proxy = await startLatencyProxy(sink.url, latencyMs);
  try {
    const before = await sink.tally();
    const gateway = createArweaveGateway({ gatewayUrl: proxy.url });
    const posted = new PostedChunks(tree.chunkCount);
    await postChunks({ blobStore: store, layout, tree, posted, concurrency, post: (chunk) => gateway.postChunk(chunk) });
    const after = await sink.tally();
    if (after.chunks - before.chunks !== tree.chunkCount || after.chunkBytes - before.chunkBytes !== layout.totalSize) {
      throw new Error(
        `the sink got ${after.chunks - before.chunks} chunks, ${after.chunkBytes - before.chunkBytes} bytes; sent ${tree.chunkCount}, ${layout.totalSize}`,
      );
    }
  } finally {
    await proxy.close();
  }
}

await main();

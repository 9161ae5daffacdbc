/**
 * Preparing and posting one large bundle (default 3 items of 512 MiB: 1.5 GiB), in this process, as
 * the bundler does it: `prepareBundle` (data root streamed from the fs blob store, transaction
 * signed), then `POST /tx` and one `POST /chunk` per 256 KiB chunk (`postChunks`: re-read by
 * range, hash-checked, base64url) through the service's gateway adapter, BUNDLE_CHUNK_CONCURRENCY's
 * default at a time (`far-gateway.ts` puts the sink far away), to a sink
 * gateway on 127.0.0.1 (another process) that answers 200 and discards the bodies. arlocal keeps
 * every byte in SQLite and is not made for 1.5 GiB.
 *
 * Prints MiB/s for preparing and for posting, the peak RSS of this process (VmHWM) during each, and
 * the ratio of prepare throughput to SHA-256 alone over the same streamed bytes, in the same run.
 * The items are signed ANS-104 items written straight into the blob store (no item is ever in
 * memory); their blobs are read back from the page cache: this measures CPU and the code, not the disk.
 *
 *   npx tsx scripts/bench/bundle-post.ts
 *   BENCH_ITEMS=16 BENCH_ITEM_MIB=100 BENCH_ROUNDS=3 npx tsx scripts/bench/bundle-post.ts
 *   npx tsx scripts/bench/bundle-post.ts --json        # the figures as one JSON line on stdout
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { bundleBytes, bundleLayout, PostedChunks, postChunks, prepareBundle, type BlobEntry, type PreparedBundle } from '../../src/bundling/index.js';
import { parseConfig } from '../../src/config.js';
import type { TransactionHeader } from '../../src/ports/gateway.js';
import { loadTestJwk } from '../../test/fixtures/testWallet.js';
import { peakRssMiB } from './lib/peakRss.js';
import { positiveIntEnv } from './lib/settings.js';
import { emitJson, round, say } from './lib/output.js';
import { putSignedItem } from './lib/signedItemBlob.js';
import { startSinkGateway } from './lib/sinkGateway.js';
import { median } from './lib/stats.js';

const MiB = 1024 * 1024;
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
const rate = (mibPerS: number) => `${mibPerS.toFixed(0).padStart(5)} MiB/s`;
const rss = (mib: number) => `${mib.toFixed(0)} MiB`;

/** VmHWM back to the current RSS (Linux: "5" to clear_refs), so each phase's peak is its own */
const resetPeakRss = () =>
  writeFile('/proc/self/clear_refs', '5').then(
    () => true,
    () => false,
  );

async function main(): Promise<void> {
  const items = positiveIntEnv('BENCH_ITEMS', 3);
  const itemMiB = positiveIntEnv('BENCH_ITEM_MIB', 512);
  const rounds = positiveIntEnv('BENCH_ROUNDS', 3);
  const dir = process.env.BENCH_DIR ?? '.bench';
  await mkdir(dir, { recursive: true });
  const root = await mkdtemp(join(dir, 'bundle-post-'));
  const store = await openFsBlobStore({ root, staleTempAfterMs: 0 });
  const sink = await startSinkGateway();
  try {
    let start = process.hrtime.bigint();
    const entries: BlobEntry[] = [];
    for (let i = 0; i < items; i++) {
      const { id, size } = await putSignedItem(store, itemMiB * MiB);
      entries.push({ id, size, blobKey: `items/${id}` });
    }
    const layout = bundleLayout(entries);
    const size = layout.totalSize / MiB;
    say(`bundle of ${items} signed items of ${itemMiB} MiB: ${layout.totalSize} bytes (${size.toFixed(0)} MiB), written in ${seconds(start).toFixed(1)} s`);
    const whileWriting = await peakRssMiB(process.pid);

    const sha256Only = async () => {
      const hash = createHash('sha256');
      for await (const piece of bundleBytes(store, entries)) hash.update(piece);
      hash.digest();
    };
    const jwk = loadTestJwk();
    let prepared: PreparedBundle | undefined;
    const prepare = async () => {
      prepared = await prepareBundle({ blobStore: store, layout, jwk, anchor: 'a'.repeat(64), reward: '1' });
    };

    const peaksReset = await resetPeakRss();
    const results = { sha256: [] as number[], prepare: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      // alternating order, so neither side always runs on a warmer cache
      const order = round % 2 === 1 ? (['sha256', 'prepare'] as const) : (['prepare', 'sha256'] as const);
      for (const which of order) {
        start = process.hrtime.bigint();
        await (which === 'sha256' ? sha256Only() : prepare());
        results[which].push(size / seconds(start));
        say(`round ${round} ${which.padEnd(8)} ${rate(results[which].at(-1)!)}`);
      }
    }
    const whilePreparing = await peakRssMiB(process.pid);

    await resetPeakRss();
    const gateway = createArweaveGateway({ gatewayUrl: sink.url });
    const { tx, tree } = prepared!;
    start = process.hrtime.bigint();
    await gateway.postTransaction(tx as unknown as TransactionHeader);
    const concurrency = parseConfig({}).bundler.chunkConcurrency;
    const progress = new PostedChunks(tree.chunkCount);
    await postChunks({ blobStore: store, layout, tree, posted: progress, concurrency, post: (chunk) => gateway.postChunk(chunk) });
    const posted = progress.upTo;
    const postRate = size / seconds(start);
    const whilePosting = await peakRssMiB(process.pid);
    const tally = await sink.tally();
    if (tally.txs !== 1 || tally.chunks !== posted || tally.chunkBytes !== layout.totalSize) {
      throw new Error(`the sink got ${tally.txs} tx, ${tally.chunks} chunks, ${tally.chunkBytes} bytes; sent 1, ${posted}, ${layout.totalSize}`);
    }

    const ratios = results.prepare.map((value, i) => value / (results.sha256[i] ?? NaN));
    say(`\nmedians of ${rounds} rounds, same bundle, same run`);
    say(`sha256 of the streamed bundle      ${rate(median(results.sha256))}`);
    say(`prepare (data root + signature)    ${rate(median(results.prepare))}   ratio to sha256: ${median(ratios).toFixed(3)}`);
    say(`post (header + ${posted} chunks, ${concurrency} at a time, ${(tally.bodyBytes / MiB).toFixed(0)} MiB of JSON bodies) ${rate(postRate)}`);
    const scope = peaksReset ? '' : ' (VmHWM could not be reset: whole process so far)';
    say(
      `peak RSS of the process ${rss(Math.max(whileWriting, whilePreparing, whilePosting))}: writing the items ${rss(whileWriting)}, preparing ${rss(whilePreparing)}, posting ${rss(whilePosting)}${scope}`,
    );
    emitJson({
      benchmark: 'bundle-post',
      items,
      bytes: layout.totalSize,
      rounds,
      prepareMiBps: round(median(results.prepare)),
      baseline: 'SHA-256 of the same streamed bundle',
      baselineMiBps: round(median(results.sha256)),
      ratio: round(median(ratios), 3),
      postMiBps: round(postRate),
      chunks: posted,
      concurrency,
      peakRssMiB: round(Math.max(whilePreparing, whilePosting), 0),
      peakRssWritingMiB: round(whileWriting, 0),
      peakRssScope: peaksReset ? 'preparing and posting' : 'whole process',
    });
  } finally {
    await sink.close();
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();

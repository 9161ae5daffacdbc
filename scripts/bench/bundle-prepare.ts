/**
 * Preparing a bundle: the data root of a bundle streamed (header, then every item's blob) from the fs
 * blob store, against SHA-256 alone over the same stream in the same run, so the ratio shows what the
 * chunking and merkle tree cost on top of reading and hashing the bytes once. Then one pass building
 * every chunk upload body (re-read by range, hash-checked, base64url), as posting does, and the
 * transaction signature. The data root is also computed as the bundler does it, each item's
 * blob checked against its accepted sha256 on the way (a second SHA-256 over the items' bytes).
 * Peak RSS is the process's VmHWM, reset after the blobs are written when
 * the kernel allows it, so it covers the measured passes only.
 *
 * The blobs are read back from the page cache (they were just written): this measures CPU and the
 * adapter, not the disk.
 *
 *   npx tsx scripts/bench/bundle-prepare.ts                 # 1 GiB, items of 1 KiB to 2 MiB, 3 rounds
 *   BENCH_MIB=2048 BENCH_MAX_ITEM_KIB=256 BENCH_ROUNDS=5 npx tsx scripts/bench/bundle-prepare.ts
 *   npx tsx scripts/bench/bundle-prepare.ts --json     # the figures as one JSON line on stdout
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import {
  bundleBytes,
  bundleLayout,
  checkedBundleBytes,
  chunkUploads,
  computeDataRoot,
  signBundleTransaction,
  type CheckedEntry,
} from '../../src/bundling/index.js';
import { loadTestJwk } from '../../test/fixtures/testWallet.js';
import { peakRssMiB } from './lib/peakRss.js';
import { positiveIntEnv } from './lib/settings.js';
import { emitJson, round, say } from './lib/output.js';
import { median } from './lib/stats.js';

const KiB = 1024;
const MiB = 1024 * KiB;

function settings() {
  return {
    mib: positiveIntEnv('BENCH_MIB', 1024),
    maxItemKiB: positiveIntEnv('BENCH_MAX_ITEM_KIB', 2048),
    rounds: positiveIntEnv('BENCH_ROUNDS', 3),
    dir: process.env.BENCH_DIR ?? '.bench',
  };
}

/** item blobs of sizes spread evenly over [1 KiB, max], filled from a 16 MiB random pool */
async function writeItems(store: BlobStore, totalBytes: number, maxItem: number): Promise<Required<CheckedEntry>[]> {
  const pool = randomBytes(16 * MiB);
  const headerFor = (n: number) => 32 + 64 * n;
  const entries: Required<CheckedEntry>[] = [];
  let written = 0;
  for (let i = 0; headerFor(entries.length + 1) + written < totalBytes; i++) {
    const room = totalBytes - headerFor(entries.length + 1) - written;
    const size = Math.min(room, KiB + Math.floor(Math.random() * (maxItem - KiB)));
    const id = createHash('sha256').update(`bench item ${i}`).digest('base64url');
    const blobKey = `items/${id}`;
    const start = Math.floor(Math.random() * (pool.byteLength - size));
    const bytes = pool.subarray(start, start + size);
    await store.put(blobKey, slices(bytes));
    entries.push({ id, size, blobKey, sha256: createHash('sha256').update(bytes).digest('hex') });
    written += size;
  }
  return entries;
}

async function* slices(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.byteLength; at += MiB) yield bytes.subarray(at, at + MiB);
}

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
const rate = (mibPerS: number) => `${mibPerS.toFixed(0).padStart(5)} MiB/s`;

/** VmHWM reset to the current RSS (Linux: "5" to clear_refs); false where not allowed */
async function resetPeakRss(): Promise<boolean> {
  return writeFile('/proc/self/clear_refs', '5').then(
    () => true,
    () => false,
  );
}

async function main(): Promise<void> {
  const { mib, maxItemKiB, rounds, dir } = settings();
  await mkdir(dir, { recursive: true });
  const root = await mkdtemp(join(dir, 'bundle-prepare-'));
  const store = await openFsBlobStore({ root, staleTempAfterMs: 0 });
  try {
    const entries = await writeItems(store, mib * MiB, maxItemKiB * KiB);
    const layout = bundleLayout(entries);
    const size = layout.totalSize / MiB;
    say(`bundle of ${entries.length} items, ${layout.totalSize} bytes (${size.toFixed(0)} MiB), items of 1 KiB to ${maxItemKiB} KiB`);
    const peakReset = await resetPeakRss();
    const rssBefore = process.memoryUsage().rss / MiB;

    const sha256Only = async () => {
      const hash = createHash('sha256');
      for await (const piece of bundleBytes(store, entries)) hash.update(piece);
      hash.digest();
    };
    const dataRoot = async () => {
      await computeDataRoot(bundleBytes(store, entries));
    };
    const checked = async () => {
      await computeDataRoot(checkedBundleBytes(store, entries));
    };
    const passes = { sha256: sha256Only, dataRoot, checked };
    const results = { sha256: [] as number[], dataRoot: [] as number[], checked: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      // rotating order, so no pass always runs on a warmer cache
      const all = ['sha256', 'dataRoot', 'checked'] as const;
      const order = all.map((_, i) => all[(i + round) % all.length]!);
      for (const which of order) {
        const start = process.hrtime.bigint();
        await passes[which]();
        results[which].push(size / seconds(start));
        say(`round ${round} ${which.padEnd(8)} ${rate(results[which].at(-1)!)}`);
      }
    }

    const tree = await computeDataRoot(bundleBytes(store, entries));
    let start = process.hrtime.bigint();
    let bodies = 0;
    for await (const body of chunkUploads(store, layout, tree)) bodies += body.chunk.length > 0 ? 1 : 0;
    const chunkRate = size / seconds(start);
    start = process.hrtime.bigint();
    const tx = await signBundleTransaction({ jwk: loadTestJwk(), anchor: 'a'.repeat(64), reward: '1', dataRoot: tree.dataRoot, dataSize: tree.dataSize });
    const signMs = seconds(start) * 1000;

    const ratios = results.dataRoot.map((value, i) => value / (results.sha256[i] ?? NaN));
    say(`\nmedians of ${rounds} rounds, same bundle, same run`);
    say(`sha256 of the streamed bundle   ${rate(median(results.sha256))}`);
    say(`data root of the streamed bundle ${rate(median(results.dataRoot))}   ratio to sha256: ${median(ratios).toFixed(3)}`);
    const checkedRatios = results.checked.map((value, i) => value / (results.sha256[i] ?? NaN));
    say(`data root, items checked against their sha256 ${rate(median(results.checked))}   ratio to sha256: ${median(checkedRatios).toFixed(3)}`);
    say(`chunk upload bodies (${bodies} chunks, by range) ${rate(chunkRate)}`);
    say(`sign the transaction: ${signMs.toFixed(1)} ms (id ${tx.id})`);
    const peak = await peakRssMiB(process.pid);
    const scope = peakReset ? 'during the measured passes' : 'of the whole process (VmHWM could not be reset)';
    say(`peak RSS ${peak.toFixed(0)} MiB ${scope}; RSS before them ${rssBefore.toFixed(0)} MiB`);
    emitJson({
      benchmark: 'bundle-prepare',
      items: entries.length,
      bytes: layout.totalSize,
      rounds,
      dataRootMiBps: round(median(results.dataRoot)),
      baseline: 'SHA-256 of the same streamed bundle',
      baselineMiBps: round(median(results.sha256)),
      ratio: round(median(ratios), 3),
      checkedDataRootMiBps: round(median(results.checked)),
      checkedRatio: round(median(checkedRatios), 3),
      chunkBodiesMiBps: round(chunkRate),
      signMs: round(signMs),
      peakRssMiB: round(peak, 0),
      peakRssScope: peakReset ? 'measured passes' : 'whole process',
    });
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();

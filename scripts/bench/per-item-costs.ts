/**
 * Per-item costs on the embedded profile (SQLite event and read stores, fs blobs): the figures a
 * capacity plan multiplies by items a day (docs/scaling.md). A fresh service (dist/, a child process)
 * takes `--items` 1 KiB items with four tags, the five signature types in turn, through HTTP with
 * real signatures; then the bundler runs them to permanent bundles against a gateway double that
 * confirms at once (lib/settlingGateway.ts) and the projections catch up; then one large item goes
 * the same way. It prints:
 * - events and bytes per item in the event store: the file's growth, events and serialized bytes by
 *   type, streams by category;
 * - read-model bytes per item: the file's growth, pages by table and index (`dbstat`), documents,
 *   JSON bytes and `findByKey` keys by collection;
 * - blob overhead: the small-blob table's growth against the items' bytes; the large item's file,
 *   its size and the blocks it takes;
 * - CPU ms per upload by signature type: the service's CPU (all threads) over the uploads of that
 *   type, the bundler stopped meanwhile (uploads and projections only);
 * - the bundler's cost per item: its CPU (with the projections of its events) per item, events per
 *   bundle, bytes posted to the gateway per item;
 * - CPU s per GiB through one core for a large item: uploading it, then bundling and posting it.
 *
 *   npm run build && tsx scripts/bench/per-item-costs.ts [--items 20000] [--large-mib 256] [--concurrency 32] [--quick] [--json]
 *
 * `--quick`: 1,000 items and a 32 MiB item (what `npm run bench -- --quick` runs).
 *
 * A bench, not a test: CPU figures swing with the machine's other work, byte figures do not.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServiceProcess, type ServiceProcess } from '../lib/serviceProcess.js';
import { writeLargeItem } from './lib/largeItem.js';
import { emitJson, round, say } from './lib/output.js';
import { presignItems } from './lib/presign.js';
import { processCpuMs } from './lib/processCpu.js';
import { startSettlingGateway, type PostTally, type SettlingGateway } from './lib/settlingGateway.js';
import { settled, storeFigures, type StoreFigures } from './lib/storeFigures.js';

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    'large-mib': { type: 'string' },
    quick: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '32' },
    json: { type: 'boolean', default: false },
  },
});
/** `--quick`: a smoke check's sizes (under a minute), unless given */
const ITEMS = Number(values.items ?? (values.quick ? 1000 : 20_000));
const LARGE_BYTES = Number(values['large-mib'] ?? (values.quick ? 32 : 256)) * 2 ** 20;
const CONCURRENCY = Number(values.concurrency);
for (const [flag, value] of [
  ['--items', ITEMS],
  ['--large-mib', LARGE_BYTES],
  ['--concurrency', CONCURRENCY],
] as const) {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${flag} must be a positive integer`);
}
const PAYLOAD_BYTES = 1024;
const TYPES: Readonly<Record<number, string>> = { 1: 'arweave', 2: 'ed25519', 3: 'ethereum', 4: 'solana', 7: 'typed ethereum' };
/** a few tags, as an uploading app sets them */
const TAGS = [
  { name: 'Content-Type', value: 'application/octet-stream' },
  { name: 'App-Name', value: 'per-item-costs' },
  { name: 'App-Version', value: '1.0.0' },
  { name: 'Unix-Time', value: '1764400000' },
];
const GiB = 2 ** 30;
const SETTLE_LIMIT_MS = 10 * 60_000;

/** POSTs `body` (bytes, or a file streamed with its size) to /v1/tx; the status code */
function post(agent: Agent, base: string, body: Buffer | { file: string; size: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const length = Buffer.isBuffer(body) ? body.length : body.size;
    const headers = { 'content-type': 'application/octet-stream', 'content-length': length };
    const req = request(new URL('/v1/tx', base), { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Buffer.isBuffer(body)) req.end(body);
    else createReadStream(body.file).pipe(req);
  });
}

/** posts every item, `CONCURRENCY` at a time; throws on any answer but 200 */
async function postAll(base: string, items: readonly Buffer[]): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < items.length) {
          const status = await post(agent, base, items[next++]!);
          if (status !== 200) throw new Error(`POST /v1/tx answered ${status}`);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

/** polls until the service's stores are settled (lib/storeFigures.ts) */
async function waitSettled(dataDir: string, bundled: boolean): Promise<void> {
  const deadline = performance.now() + SETTLE_LIMIT_MS;
  while (!settled(dataDir, { bundled })) {
    if (performance.now() > deadline) throw new Error(`not settled (bundled: ${bundled}) within ${SETTLE_LIMIT_MS / 60_000} min`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const cpuOf = async (service: ServiceProcess): Promise<number> => {
  const ms = await processCpuMs(service.process.pid);
  if (ms === undefined) throw new Error('the service process CPU time is not readable here (Linux /proc only)');
  return ms;
};

function serviceEnv(dataDir: string, gateway: SettlingGateway, bundler: boolean): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    GATEWAY_URL: gateway.url,
    LOG_LEVEL: 'error',
    BUNDLER_ENABLED: String(bundler),
    BUNDLER_INTERVAL_MS: '250',
    BUNDLE_MAX_WAIT_MS: '0',
    // the large item is taken free, as a small one: no payment in the figures
    FREE_UPLOAD_LIMIT_BYTES: String(4 * GiB),
  };
}

interface UploadPhase {
  cpuMsPerUploadByType: Record<string, number>;
  before: StoreFigures;
  after: StoreFigures;
  itemBytes: number;
}

/** the bundler stopped: the items posted type by type, each type's CPU per upload; the stores before and after */
async function uploadPhase(dataDir: string, gateway: SettlingGateway, itemsByType: Map<number, Buffer[]>): Promise<UploadPhase> {
  const service = await startServiceProcess(serviceEnv(dataDir, gateway, false));
  try {
    await waitSettled(dataDir, false);
    const before = storeFigures(dataDir);
    const cpuMsPerUploadByType: Record<string, number> = {};
    for (const [type, items] of itemsByType) {
      const cpu0 = await cpuOf(service);
      await postAll(service.url, items);
      cpuMsPerUploadByType[TYPES[type]!] = round(((await cpuOf(service)) - cpu0) / items.length, 2);
      say(`  type ${type} (${TYPES[type]}): ${items.length} uploads, ${cpuMsPerUploadByType[TYPES[type]!]} CPU ms per upload`);
    }
    await waitSettled(dataDir, false);
    const itemBytes = [...itemsByType.values()].flat().reduce((sum, item) => sum + item.length, 0);
    return { cpuMsPerUploadByType, before, after: storeFigures(dataDir), itemBytes };
  } finally {
    await service.stop();
  }
}

interface LargeItem {
  bytes: number;
  uploadCpuSecondsPerGiB: number;
  bundleCpuSecondsPerGiB: number;
  fileBytes: number;
  allocatedBytes: number;
}

/** the bundler running: the small items to permanent bundles (its CPU), then one large item uploaded and bundled */
async function bundlePhase(
  dataDir: string,
  gateway: SettlingGateway,
): Promise<{ bundleCpuMs: number; settled: StoreFigures; posted: PostTally; large: LargeItem }> {
  const service = await startServiceProcess(serviceEnv(dataDir, gateway, true));
  try {
    const cpu0 = await cpuOf(service);
    await waitSettled(dataDir, true);
    const bundleCpuMs = (await cpuOf(service)) - cpu0;
    const figures = storeFigures(dataDir);
    // the small items' bundles only: the large item's are its own figure
    const posted = gateway.tally();

    const file = join(dataDir, 'large-item.bin');
    const { id } = await writeLargeItem(file, LARGE_BYTES);
    const agent = new Agent({ keepAlive: true });
    const cpu1 = await cpuOf(service);
    const status = await post(agent, service.url, { file, size: LARGE_BYTES });
    agent.destroy();
    if (status !== 200) throw new Error(`the large item: POST /v1/tx answered ${status}`);
    const cpu2 = await cpuOf(service);
    await rm(file);
    await waitSettled(dataDir, true);
    const cpu3 = await cpuOf(service);
    const blob = await findBlob(join(dataDir, 'blobs'), id);
    const gib = LARGE_BYTES / GiB;
    return {
      bundleCpuMs,
      settled: figures,
      posted,
      large: {
        bytes: LARGE_BYTES,
        uploadCpuSecondsPerGiB: round((cpu2 - cpu1) / 1000 / gib, 2),
        bundleCpuSecondsPerGiB: round((cpu3 - cpu2) / 1000 / gib, 2),
        fileBytes: blob.size,
        allocatedBytes: blob.blocks * 512,
      },
    };
  } finally {
    await service.stop();
  }
}

/** the blob file whose name ends with the item's id, anywhere under the blob store's root */
async function findBlob(root: string, id: string): Promise<{ size: number; blocks: number }> {
  const names = (await readdir(root, { recursive: true })).filter((name) => name.endsWith(id));
  for (const name of names) {
    const s = await stat(join(root, name));
    if (s.isFile()) return { size: s.size, blocks: s.blocks };
  }
  throw new Error(`no blob file for item ${id} under ${root}`);
}

/** per-item figures from the stores before and after, over `items` */
function perItem(before: StoreFigures, after: StoreFigures, items: number) {
  const per = (n: number) => round(n / items, 1);
  /** counts per item: small fractions (a bundle's events over its 10,000 items) kept */
  const count = (n: number) => round(n / items, 5);
  const byType = Object.fromEntries(
    Object.entries(after.events.byType).map(([type, t]) => {
      const b = before.events.byType[type] ?? { count: 0, dataBytes: 0, metadataBytes: 0 };
      return [type, { eventsPerItem: count(t.count - b.count), bytesPerItem: per(t.dataBytes + t.metadataBytes - b.dataBytes - b.metadataBytes) }];
    }),
  );
  const collections = Object.fromEntries(
    Object.entries(after.read.collections).map(([name, c]) => {
      const b = before.read.collections[name] ?? { documents: 0, docBytes: 0, keys: 0 };
      return [name, { documentsPerItem: count(c.documents - b.documents), docBytesPerItem: per(c.docBytes - b.docBytes), keysPerItem: count(c.keys - b.keys) }];
    }),
  );
  const pagesByName = Object.fromEntries(
    Object.entries(after.read.pagesByName).map(([name, bytes]) => [name, per(bytes - (before.read.pagesByName[name] ?? 0))]),
  );
  const streams = Object.fromEntries(
    Object.entries(after.events.streams).map(([category, n]) => [category, count(n - (before.events.streams[category] ?? 0))]),
  );
  return {
    eventStore: {
      fileBytesPerItem: per(after.events.fileBytes - before.events.fileBytes),
      eventsPerItem: count(after.events.count - before.events.count),
      serializedBytesPerItem: per(
        Object.values(after.events.byType).reduce((s, t) => s + t.dataBytes + t.metadataBytes, 0) -
          Object.values(before.events.byType).reduce((s, t) => s + t.dataBytes + t.metadataBytes, 0),
      ),
      byType,
      streamsPerItem: streams,
    },
    readStore: { fileBytesPerItem: per(after.read.fileBytes - before.read.fileBytes), pageBytesPerItemByName: pagesByName, collections },
    smallBlobs: {
      fileBytesPerItem: per(after.smallBlobs.fileBytes - before.smallBlobs.fileBytes),
      storedBytesPerItem: per(after.smallBlobs.bytes - before.smallBlobs.bytes),
    },
  };
}

async function main(): Promise<void> {
  const perType = Math.ceil(ITEMS / Object.keys(TYPES).length);
  const jwk = generateKeyPairSync('rsa', { modulusLength: 4096, publicExponent: 65537 }).privateKey.export({ format: 'jwk' });
  const itemsByType = new Map<number, Buffer[]>();
  for (const type of Object.keys(TYPES).map(Number)) {
    say(`signing ${perType} items of type ${type} (${TYPES[type]}), ${PAYLOAD_BYTES}-byte payload, ${TAGS.length} tags...`);
    itemsByType.set(type, await presignItems(jwk, perType, PAYLOAD_BYTES, type, TAGS));
  }
  const items = perType * itemsByType.size;
  const gateway = await startSettlingGateway();
  const dataDir = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-per-item-'));
  try {
    say(`uploading ${items} items (bundler stopped)...`);
    const upload = await uploadPhase(dataDir, gateway, itemsByType);
    say('bundling them to permanent bundles, then one large item...');
    const bundled = await bundlePhase(dataDir, gateway);
    report(items, upload, bundled);
  } finally {
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function report(items: number, upload: UploadPhase, bundled: Awaited<ReturnType<typeof bundlePhase>>): void {
  const { posted } = bundled;
  const accepted = perItem(upload.before, upload.after, items);
  const all = perItem(upload.before, bundled.settled, items);
  const bundles = bundled.settled.events.byType['BundlePlanned']?.count ?? 0;
  const bundleTypes = Object.entries(bundled.settled.events.byType).filter(([type]) => type.startsWith('Bundle'));
  const bundleEvents = bundleTypes.reduce((sum, [, t]) => sum + t.count, 0);
  const bundleEventBytes = bundleTypes.reduce((sum, [, t]) => sum + t.dataBytes + t.metadataBytes, 0);
  const itemBytesPerItem = round(upload.itemBytes / items, 1);
  const result = {
    benchmark: 'per-item-costs',
    items,
    itemBytesPerItem,
    tags: TAGS.length,
    cpuMsPerUploadByType: upload.cpuMsPerUploadByType,
    accepted,
    settled: all,
    bundler: {
      bundles,
      itemsPerBundle: round(items / Math.max(bundles, 1), 0),
      eventsPerBundle: round(bundleEvents / Math.max(bundles, 1), 1),
      eventBytesPerItem: round(bundleEventBytes / items, 1),
      cpuMsPerItem: round(bundled.bundleCpuMs / items, 2),
      postedTxs: posted.txs,
      postedChunks: posted.chunks,
      postedBytesPerItem: round((posted.txBodyBytes + posted.chunkBodyBytes) / items, 1),
      postedToItemBytes: round((posted.txBodyBytes + posted.chunkBodyBytes) / upload.itemBytes, 3),
    },
    large: bundled.large,
  };
  emitJson(result);
  say(`\nper-item costs over ${items} items of ${itemBytesPerItem} bytes (1 KiB payload, ${TAGS.length} tags), embedded profile`);
  say(
    `CPU ms per upload (service, all threads; bundler stopped): ${Object.entries(upload.cpuMsPerUploadByType)
      .map(([t, ms]) => `${t} ${ms}`)
      .join(', ')}`,
  );
  for (const [label, f] of [
    ['accepted (before bundling)', accepted],
    ['settled (permanent bundles, read models caught up)', all],
  ] as const) {
    say(`${label}:`);
    say(
      `  event store: ${f.eventStore.eventsPerItem} events, ${f.eventStore.serializedBytesPerItem} serialized bytes, ${f.eventStore.fileBytesPerItem} file bytes per item`,
    );
    for (const [type, t] of Object.entries(f.eventStore.byType))
      if (t.eventsPerItem !== 0) say(`    ${type}: ${t.eventsPerItem} per item, ${t.bytesPerItem} bytes per item`);
    say(
      `    streams per item: ${Object.entries(f.eventStore.streamsPerItem)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ')}`,
    );
    say(
      `  read store: ${f.readStore.fileBytesPerItem} file bytes per item; pages: ${Object.entries(f.readStore.pageBytesPerItemByName)
        .filter(([, b]) => b > 0)
        .map(([n, b]) => `${n} ${b}`)
        .join(', ')}`,
    );
    for (const [name, c] of Object.entries(f.readStore.collections)) {
      if (c.documentsPerItem !== 0 || c.docBytesPerItem !== 0)
        say(`    ${name}: ${c.documentsPerItem} documents, ${c.docBytesPerItem} JSON bytes, ${c.keysPerItem} keys per item`);
    }
    say(`  small blobs: ${f.smallBlobs.fileBytesPerItem} file bytes per item for ${f.smallBlobs.storedBytesPerItem} stored bytes (item ${itemBytesPerItem})`);
  }
  const b = result.bundler;
  say(
    `bundler: ${b.bundles} bundles of ${b.itemsPerBundle} items, ${b.eventsPerBundle} events per bundle (${b.eventBytesPerItem} serialized bytes per item), ${b.cpuMsPerItem} CPU ms per item; posted ${b.postedTxs} txs, ${b.postedChunks} chunks, ${b.postedBytesPerItem} bytes per item (${b.postedToItemBytes} of the items' bytes)`,
  );
  const l = result.large;
  say(
    `large item of ${l.bytes / 2 ** 20} MiB: upload ${l.uploadCpuSecondsPerGiB} CPU s per GiB, bundling and posting ${l.bundleCpuSecondsPerGiB} CPU s per GiB; its file ${l.fileBytes} bytes, ${l.allocatedBytes} allocated`,
  );
}

main()
  .catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => process.exit());

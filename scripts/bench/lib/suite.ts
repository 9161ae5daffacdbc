import { atLeast, below, withUnit, type Row } from './resultsTable.js';

/** the one JSON line a benchmark printed with --json */
export type Json = Record<string, unknown>;

export interface RunContext {
  quick: boolean;
  /** a directory `rebuild.ts` fills and leaves (events.db and read.db, caught up) for `startup.ts` */
  sharedStore: string;
  /** whether the shared store was made in this run */
  sharedStoreReady: boolean;
}

export interface Benchmark {
  name: string;
  script: string;
  args(ctx: RunContext): string[];
  env?(ctx: RunContext): Record<string, string>;
  /** the table's rows from the benchmark's JSON, judged by the run's targets; throws when a figure is missing */
  rows(json: Json, targets: Targets): Row[];
}

/**
 * What a run is judged by. Full: the targets of issue 14 (and earlier ones still standing), for the
 * sizes `npm run bench` measures. Quick: its own, for the small sizes of `--quick` (a smoke check
 * that each figure is in its range, not a measurement): a quick run that meets them prints no MISSED.
 */
export interface Targets {
  /** uploads/s over the receipt-signing capacity, by signature type; types not listed have none */
  smallUploadRatio: Record<number, number>;
  /** status queries/s under upload load over a bare node:http server's */
  statusQueryRatio: number;
  /** GraphQL search p99 over 1,000,000 items: a bare indexed query's p99 over the endpoint's */
  graphqlRatio: number;
  /** large uploads' MiB/s over the baseline of the same run */
  largeUploadRatio: number;
  /** large uploads: all the service's threads' CPU per GiB over the baseline thread's (median of rounds) */
  largeUploadCpuRatio: { single: number; multipart: number };
  /** large single uploads: mark-compacts of the service's main isolate during any one upload */
  largeUploadMarkCompacts: number;
  /** large single uploads: the slowest round's MiB/s over the fastest's */
  largeUploadSpread: number;
  /** the service's peak RSS for the largest item */
  peakRssMiB: number;
  /** an item read back through GET /:id, MiB/s over a bare file read of the same bytes */
  readBackRatio: number;
  rebuildEventsPerSecond: number;
  /** posting a bundle through a 100 ms round trip */
  farGatewayMiBps: number;
  startupSeconds: number;
  /** slow readers (issue 34): the service's RSS above its idle RSS while they hold their reads */
  slowReadersRssAboveIdleMiB: number;
  /** slow readers: a bystander's /info p99 meanwhile */
  slowReadersBystanderP99Ms: number;
  /** small uploads/s with the optical bridge on over off, same run */
  opticalBridgeRatio: number;
  /** small uploads/s with the optical bridge and the GraphQL read model on over both off, same run (issue 36) */
  bridgeAndGraphqlRatio: number;
}

export const TARGETS: { full: Targets; quick: Targets } = {
  full: {
    smallUploadRatio: { 1: 0.75, 2: 0.6, 4: 0.6 },
    statusQueryRatio: 0.6,
    graphqlRatio: 0.5,
    largeUploadRatio: 0.9,
    largeUploadCpuRatio: { single: 2.2, multipart: 2.6 },
    largeUploadMarkCompacts: 0,
    largeUploadSpread: 0.85,
    peakRssMiB: 300,
    readBackRatio: 0.7,
    rebuildEventsPerSecond: 40_000,
    farGatewayMiBps: 20,
    startupSeconds: 5,
    slowReadersRssAboveIdleMiB: 200,
    slowReadersBystanderP99Ms: 500,
    opticalBridgeRatio: 0.95,
    bridgeAndGraphqlRatio: 0.95,
  },
  quick: {
    smallUploadRatio: { 1: 0.3, 2: 0.3, 4: 0.3 },
    statusQueryRatio: 0.2,
    graphqlRatio: 0.05,
    // 64 MiB is mostly fixed costs against a baseline the page cache flatters: a smoke check's bound
    // (docs/decisions.md, the quick run's targets)
    largeUploadRatio: 0.15,
    // 64 MiB: start-up and the finalize weigh as much as the bytes; one round, so no spread
    largeUploadCpuRatio: { single: 4, multipart: 5 },
    largeUploadMarkCompacts: 2,
    largeUploadSpread: 0,
    peakRssMiB: 300,
    readBackRatio: 0.15,
    rebuildEventsPerSecond: 10_000,
    farGatewayMiBps: 5,
    startupSeconds: 5,
    slowReadersRssAboveIdleMiB: 200,
    slowReadersBystanderP99Ms: 500,
    // a few seconds of each on a shared machine: a smoke check's bound
    opticalBridgeRatio: 0.7,
    bridgeAndGraphqlRatio: 0.7,
  },
};

/** a number at `path` (dotted) of the JSON, or an error naming it */
export function num(json: Json, path: string): number {
  let at: unknown = json;
  for (const key of path.split('.')) at = (at as Json | undefined)?.[key];
  if (typeof at !== 'number' || Number.isNaN(at)) throw new Error(`the JSON has no number at ${path}`);
  return at;
}

const byTypeOf = (json: Json): Json[] => (Array.isArray(json.byType) ? (json.byType as Json[]) : []);

/** the signature type of small-uploads' top-level figures (a JSON without `byType` measured arweave only) */
function smallUploadMainType(json: Json): string {
  const main = byTypeOf(json).find((t) => t.signatureType === json.signatureType);
  return main ? `type ${num(main, 'signatureType')} (${String(main.name)})` : 'type 1 (arweave)';
}

/** arweave's and the ed25519 types' targets: the ethereum types have none */
const smallUploadTarget = (targets: Targets, type: number, ratio: number): Pick<Row, 'target'> => {
  const goal = targets.smallUploadRatio[type];
  return goal === undefined ? {} : { target: atLeast(ratio, goal, `ratio >= ${goal}`) };
};

const smallUploadNotes = (t: Json): string =>
  `p50 ${num(t, 'p50Ms')} ms, p99 ${num(t, 'p99Ms')} ms, ${num(t, 'errors')} errors${t.ranOutOfItems ? ', ran out of items' : ''}` +
  (typeof t.cpuMsPerUpload === 'number' ? `; ${num(t, 'cpuMsPerUpload')} CPU ms per upload (cpu ratio ${num(t, 'cpuRatio')})` : '') +
  (typeof t.clientCpuMsPerUpload === 'number' ? `; the load generator ${num(t, 'clientCpuMsPerUpload')} CPU ms per upload` : '') +
  (typeof t.ceilingPerSecond === 'number'
    ? `; the ceiling (verify, sign, answer, store nothing): ${num(t, 'ceilingPerSecond')} uploads/s, ratio ${num(t, 'ceilingRatio')} to the signing capacity, ` +
      `${num(t, 'ceilingCpuMsPerUpload')} CPU ms per upload; the service at ${num(t, 'ratioToCeiling')} of it`
    : '');

/** small-uploads' rows for the other signature types it ran (`byType`) */
function smallUploadTypeRows(json: Json, targets: Targets): Row[] {
  const byType = byTypeOf(json);
  return byType
    .filter((t) => num(t, 'signatureType') !== num(json, 'signatureType'))
    .map((t) => {
      const type = num(t, 'signatureType');
      const ratio = num(t, 'ratio');
      return {
        benchmark: 'small-uploads',
        figure: `1 KiB uploads, type ${type} (${String(t.name)}), ${num(json, 'concurrency')} clients`,
        value: num(t, 'uploadsPerSecond'),
        unit: 'uploads/s',
        baseline: { value: num(t, 'baselinePerSecond'), unit: 'signatures/s', what: 'RSA-4096 signing capacity, all cores' },
        ratio,
        ...smallUploadTarget(targets, type, ratio),
        notes: smallUploadNotes(t),
      };
    });
}

const MiB = 1 << 20;
const GiB = 1 << 30;
const sizeLabel = (bytes: number) => (bytes >= GiB && bytes % GiB === 0 ? `${bytes / GiB} GiB` : `${Math.round(bytes / MiB)} MiB`);

function largeUploadRows(json: Json, targets: Targets, throughputTargets: boolean, rssTargets: boolean): Row[] {
  const size = sizeLabel(num(json, 'sizeBytes'));
  const baseline = { value: num(json, 'baselineMiBps'), unit: 'MiB/s', what: 'SHA-384 + write + fdatasync' };
  return (['single', 'multipart'] as const).flatMap((how): Row[] => {
    const label = how === 'single' ? `${size} single POST /tx` : `${size} multi-part`;
    const ratio = num(json, `${how}.ratio`);
    const rss = num(json, `${how}.peakRssMiB`);
    const ratios = (json[how] as Json | undefined)?.ratios;
    const rounds =
      Array.isArray(ratios) && ratios.length > 1
        ? { notes: `median of ${ratios.length} rounds, each against its own baseline (ratios ${ratios.join(', ')})` }
        : {};
    return [
      {
        benchmark: 'large-uploads',
        figure: `${label}: throughput`,
        value: num(json, `${how}.MiBps`),
        unit: 'MiB/s',
        baseline,
        ratio,
        ...(throughputTargets ? { target: atLeast(ratio, targets.largeUploadRatio, `ratio >= ${targets.largeUploadRatio}`) } : {}),
        ...rounds,
      },
      ...(throughputTargets ? largeUploadCpuRows(json, targets, how, label) : []),
      {
        benchmark: 'large-uploads',
        figure: `${label}: service peak RSS`,
        value: rss,
        unit: 'MiB',
        ...(rssTargets ? { target: below(rss, targets.peakRssMiB, `< ${targets.peakRssMiB} MiB`) } : {}),
      },
    ];
  });
}

/** CPU per GiB against the baseline thread's, and (single) the mark-compacts and the spread of its rounds; absent in JSON of older runs */
function largeUploadCpuRows(json: Json, targets: Targets, how: 'single' | 'multipart', label: string): Row[] {
  const figures = json[how] as Json | undefined;
  if (typeof figures?.cpuRatio !== 'number') return [];
  const ratio = num(json, `${how}.cpuRatio`);
  const goal = targets.largeUploadCpuRatio[how];
  const rows: Row[] = [
    {
      benchmark: 'large-uploads',
      figure: `${label}: CPU s per GiB, all threads`,
      value: num(json, `${how}.allThreadsCpuSecondsPerGiB`),
      unit: 'CPU s/GiB',
      baseline: { value: num(json, 'baselineCpuSecondsPerGiB'), unit: 'CPU s/GiB', what: 'SHA-384 + write + fdatasync, one thread' },
      ratio,
      target: { text: `<= ${goal}x`, met: ratio <= goal },
      notes: `main thread ${num(json, `${how}.mainThreadCpuSecondsPerGiB`)} CPU s/GiB; median of rounds' ratios ${(figures.cpuRatios as number[]).join(', ')}`,
    },
  ];
  if (how !== 'single') return rows;
  const worst = Math.max(...(figures.markCompacts as number[]));
  const spread = num(json, 'single.slowestOverFastest');
  return [
    ...rows,
    {
      benchmark: 'large-uploads',
      figure: `${label}: main-isolate mark-compacts, worst round`,
      value: worst,
      unit: 'collections',
      target: { text: `<= ${targets.largeUploadMarkCompacts}`, met: worst <= targets.largeUploadMarkCompacts },
      notes: `rounds: ${(figures.markCompacts as number[]).join(', ')}`,
    },
    {
      benchmark: 'large-uploads',
      figure: `${label}: slowest round's MiB/s over the fastest's`,
      value: spread,
      unit: 'ratio',
      target: atLeast(spread, targets.largeUploadSpread, `>= ${targets.largeUploadSpread}`),
    },
  ];
}

/** per-item-costs' rows: the stores' growth per item against the item's own bytes, CPU per item and per GiB */
function perItemCostRows(j: Json): Row[] {
  const item = { value: num(j, 'itemBytesPerItem'), unit: 'bytes', what: 'the item itself (1 KiB payload, its tags and signature)' };
  const of = (bytes: number) => Number((bytes / item.value).toFixed(2));
  const store = (figure: string, path: string, notes: string): Row => ({
    benchmark: 'per-item-costs',
    figure: `${figure} per item, ${num(j, 'items')} items, settled`,
    value: num(j, path),
    unit: 'bytes',
    baseline: item,
    ratio: of(num(j, path)),
    notes,
  });
  const collections = (j.settled as Json | undefined)?.['readStore'] as Json | undefined;
  const byCollection = Object.entries((collections?.['collections'] ?? {}) as Record<string, Json>)
    .map(([name, c]) => `${name} ${num(c, 'docBytesPerItem')} B`)
    .join(', ');
  const cpuByType = (j.cpuMsPerUploadByType ?? {}) as Record<string, number>;
  return [
    store(
      'event store file growth',
      'settled.eventStore.fileBytesPerItem',
      `${num(j, 'settled.eventStore.eventsPerItem')} events, ${num(j, 'settled.eventStore.serializedBytesPerItem')} serialized bytes per item`,
    ),
    store('read store file growth', 'settled.readStore.fileBytesPerItem', `documents' JSON per item: ${byCollection}`),
    store('small-blob table growth', 'settled.smallBlobs.fileBytesPerItem', `${num(j, 'settled.smallBlobs.storedBytesPerItem')} bytes stored per item`),
    ...Object.entries(cpuByType).map(([type, ms]): Row => ({
      benchmark: 'per-item-costs',
      figure: `service CPU per 1 KiB upload, ${type} (bundler stopped)`,
      value: ms,
      unit: 'ms',
    })),
    {
      benchmark: 'per-item-costs',
      figure: 'bundler CPU per item, to permanent (projections of its events included)',
      value: num(j, 'bundler.cpuMsPerItem'),
      unit: 'ms',
      notes: `${num(j, 'bundler.bundles')} bundles of ${num(j, 'bundler.itemsPerBundle')} items, ${num(j, 'bundler.eventsPerBundle')} events each (${num(j, 'bundler.eventBytesPerItem')} bytes per item); posted ${num(j, 'bundler.postedBytesPerItem')} bytes per item (${num(j, 'bundler.postedToItemBytes')} of the items' bytes)`,
    },
    {
      benchmark: 'per-item-costs',
      figure: `service CPU per GiB, a ${sizeLabel(num(j, 'large.bytes'))} item: upload`,
      value: num(j, 'large.uploadCpuSecondsPerGiB'),
      unit: 's',
      notes: `bundling and posting it: ${num(j, 'large.bundleCpuSecondsPerGiB')} CPU s per GiB; its file ${num(j, 'large.fileBytes')} bytes, ${num(j, 'large.allocatedBytes')} allocated`,
    },
  ];
}

/** Every benchmark, in the order `npm run bench` runs them, with its quick and full sizes. */
export const suite: Benchmark[] = [
  {
    name: 'receipt-signing',
    script: 'receipt-signing.ts',
    args: ({ quick }) => (quick ? ['--seconds', '1', '--rounds', '1'] : []),
    rows: (j) => [
      {
        benchmark: 'receipt-signing',
        figure: `receipts signed, pool of ${num(j, 'workers')} workers`,
        value: num(j, 'receiptsPerSecond'),
        unit: 'receipts/s',
        baseline: { value: num(j, 'baselineReceiptsPerSecond'), unit: 'receipts/s', what: 'single-thread crypto.sign loop' },
        ratio: num(j, 'ratio'),
        notes: `${num(j, 'cpuMsPerReceipt')} CPU ms per receipt (loop: ${num(j, 'baselineCpuMsPerReceipt')})`,
      },
    ],
  },
  {
    name: 'event-store-appends',
    script: 'event-store-appends.ts',
    args: () => [],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_APPENDS: '200', BENCH_ROUNDS: '1' } : {}),
    rows: (j) => [
      {
        benchmark: 'event-store-appends',
        figure: `${num(j, 'appends')} concurrent single-event appends (group commit)`,
        value: num(j, 'appendsPerSecond'),
        unit: 'appends/s',
        baseline: { value: num(j, 'baselineAppendsPerSecond'), unit: 'appends/s', what: 'one after another' },
        ratio: num(j, 'ratio'),
        notes: `${num(j, 'transactions')} transactions`,
      },
    ],
  },
  {
    name: 'blob-write',
    script: 'blob-write.ts',
    args: () => [],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_MIB: '64', BENCH_ROUNDS: '1' } : { BENCH_ROUNDS: '3' }),
    rows: (j) => [
      {
        benchmark: 'blob-write',
        figure: `${num(j, 'mib')} MiB through the fs blob writer`,
        value: num(j, 'writerMiBps'),
        unit: 'MiB/s',
        baseline: { value: num(j, 'baselineMiBps'), unit: 'MiB/s', what: 'fs write + fdatasync' },
        ratio: num(j, 'ratio'),
        notes: `write phase alone: ratio ${num(j, 'writePhaseRatio')}`,
      },
    ],
  },
  {
    name: 'bundle-prepare',
    script: 'bundle-prepare.ts',
    args: () => [],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_MIB: '64', BENCH_ROUNDS: '1' } : {}),
    rows: (j) => [
      {
        benchmark: 'bundle-prepare',
        figure: `data root of a ${sizeLabel(num(j, 'bytes'))} bundle (${num(j, 'items')} items)`,
        value: num(j, 'dataRootMiBps'),
        unit: 'MiB/s',
        baseline: { value: num(j, 'baselineMiBps'), unit: 'MiB/s', what: 'SHA-256 of the same stream' },
        ratio: num(j, 'ratio'),
        notes: `chunk bodies ${withUnit(num(j, 'chunkBodiesMiBps'), 'MiB/s')}, peak RSS ${withUnit(num(j, 'peakRssMiB'), 'MiB')}`,
      },
    ],
  },
  {
    name: 'bundle-post',
    script: 'bundle-post.ts',
    args: () => [],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_ITEMS: '2', BENCH_ITEM_MIB: '16', BENCH_ROUNDS: '1' } : {}),
    rows: (j) => [
      {
        benchmark: 'bundle-post',
        figure: `prepare a ${sizeLabel(num(j, 'bytes'))} bundle (${num(j, 'items')} items)`,
        value: num(j, 'prepareMiBps'),
        unit: 'MiB/s',
        baseline: { value: num(j, 'baselineMiBps'), unit: 'MiB/s', what: 'SHA-256 of the same stream' },
        ratio: num(j, 'ratio'),
        notes: `peak RSS ${withUnit(num(j, 'peakRssMiB'), 'MiB')} preparing and posting`,
      },
      {
        benchmark: 'bundle-post',
        figure: `post it to a sink gateway (${num(j, 'chunks')} chunks, ${num(j, 'concurrency')} at a time)`,
        value: num(j, 'postMiBps'),
        unit: 'MiB/s',
      },
    ],
  },
  {
    name: 'far-gateway',
    script: 'far-gateway.ts',
    args: () => [],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_ITEMS: '1', BENCH_ITEM_MIB: '16' } : {}),
    rows: (j, targets) =>
      [50, 100, 200].map((ms) => ({
        benchmark: 'far-gateway',
        figure: `post a ${sizeLabel(num(j, 'bytes'))} bundle, ${ms} ms round trip (${num(j, 'concurrency')} chunks at a time)`,
        value: num(j, `latencies.${ms}ms.MiBps`),
        unit: 'MiB/s',
        baseline: { value: num(j, 'baselineMiBps'), unit: 'MiB/s', what: 'the same through the proxy at 0 ms' },
        ratio: num(j, `latencies.${ms}ms.ratio`),
        ...(ms === 100 ? { target: atLeast(num(j, 'latencies.100ms.MiBps'), targets.farGatewayMiBps, `>= ${targets.farGatewayMiBps} MiB/s`) } : {}),
        notes: `peak RSS ${withUnit(num(j, 'peakRssMiB'), 'MiB')} posting (${withUnit(num(j, 'peakRssAboveStartMiB'), 'MiB')} above the start)`,
      })),
  },
  {
    name: 'small-uploads',
    script: 'small-uploads.ts',
    args: ({ quick }) => (quick ? ['--seconds', '3', '--warmup', '1'] : []),
    rows: (j, targets) => [
      {
        benchmark: 'small-uploads',
        figure: `1 KiB uploads, ${smallUploadMainType(j)}, ${num(j, 'concurrency')} clients`,
        value: num(j, 'uploadsPerSecond'),
        unit: 'uploads/s',
        baseline: { value: num(j, 'baselinePerSecond'), unit: 'signatures/s', what: 'RSA-4096 signing capacity, all cores' },
        ratio: num(j, 'ratio'),
        ...smallUploadTarget(targets, typeof j.signatureType === 'number' ? j.signatureType : 1, num(j, 'ratio')),
        notes: smallUploadNotes(byTypeOf(j).find((t) => t.signatureType === j.signatureType) ?? j),
      },
      ...smallUploadTypeRows(j, targets),
    ],
  },
  {
    name: 'large-uploads',
    script: 'large-uploads.ts',
    // three rounds judge the throughput (one in a quick run)
    args: ({ quick }) => ['--size', String(quick ? 64 * MiB : GiB), '--trials', quick ? '1' : '3'],
    rows: (j, targets) => largeUploadRows(j, targets, true, false),
  },
  {
    name: 'large-uploads-2gib',
    script: 'large-uploads.ts',
    // the largest item the service accepts by default (MAX_DATA_ITEM_SIZE), for its peak RSS
    args: ({ quick }) => ['--size', String(quick ? 128 * MiB : 2 * GiB), '--trials', '1'],
    rows: (j, targets) => largeUploadRows(j, targets, false, true),
  },
  {
    name: 'read-back',
    script: 'read-back.ts',
    args: () => [],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_MIB: '64', BENCH_ROUNDS: '2' } : {}),
    rows: (j, targets) => [
      {
        benchmark: 'read-back',
        figure: `${sizeLabel(num(j, 'sizeBytes'))} item read back through GET /:id`,
        value: num(j, 'readBackMiBps'),
        unit: 'MiB/s',
        baseline: { value: num(j, 'baselineMiBps'), unit: 'MiB/s', what: 'bare file read of the same bytes' },
        ratio: num(j, 'ratio'),
        target: atLeast(num(j, 'ratio'), targets.readBackRatio, `ratio >= ${targets.readBackRatio}`),
        notes: `a bare node:http server streaming the same bytes: ${withUnit(num(j, 'bareHttpMiBps'), 'MiB/s')}; the loopback ceiling (bytes from memory over a raw socket): ${withUnit(num(j, 'loopbackCeilingMiBps'), 'MiB/s')}, ratio ${num(j, 'ceilingRatio')} to the file read, the service at ${num(j, 'ratioToCeiling')} of it; service CPU ${num(j, 'serviceCpuMsPerGiB')} ms per GiB read; service peak RSS ${withUnit(num(j, 'peakRssMiB'), 'MiB')}`,
      },
    ],
  },
  {
    name: 'slow-readers',
    script: 'slow-readers.ts',
    args: ({ quick }) => (quick ? ['--readers', '100', '--pipelined', '300', '--hold', '5', '--idle-ms', '3000'] : []),
    rows: (j, targets) => {
      const load = `${num(j, 'pipelined')} pipelined GETs on one connection and ${num(j, 'readers')} readers of a ${sizeLabel(num(j, 'itemBytes'))} item taking (almost) nothing, ${num(j, 'holdSeconds')} s`;
      const filesBack = num(j, 'filesBackMs');
      const idle = num(j, 'idleTimeoutMs');
      return [
        {
          benchmark: 'slow-readers',
          figure: `${load}: service RSS above idle`,
          value: num(j, 'rssAboveIdleMiB'),
          unit: 'MiB',
          baseline: { value: num(j, 'idleRssMiB'), unit: 'MiB', what: 'idle RSS' },
          target: below(num(j, 'rssAboveIdleMiB'), targets.slowReadersRssAboveIdleMiB, `< ${targets.slowReadersRssAboveIdleMiB} MiB`),
          notes: `peak ${withUnit(num(j, 'peakRssMiB'), 'MiB')}`,
        },
        {
          benchmark: 'slow-readers',
          figure: `${load}: open files back to idle after the clients stop`,
          value: filesBack,
          unit: 'ms',
          baseline: { value: num(j, 'idleOpenFiles'), unit: 'files', what: 'idle open files' },
          target: { text: `<= ${idle} ms (BODY_IDLE_TIMEOUT_MS)`, met: filesBack >= 0 && filesBack <= idle },
          notes: `${num(j, 'peakOpenFiles')} open at most, ${num(j, 'openFilesAtStop')} when the clients stopped (-1: not back within the idle timeout + 30 s)`,
        },
        {
          benchmark: 'slow-readers',
          figure: `${load}: a bystander's GET /info p99`,
          value: num(j, 'bystander.p99Ms'),
          unit: 'ms',
          baseline: { value: num(j, 'bystander.baselineP99Ms'), unit: 'ms', what: 'its p99 before the readers' },
          target: below(num(j, 'bystander.p99Ms'), targets.slowReadersBystanderP99Ms, `< ${targets.slowReadersBystanderP99Ms} ms`),
          notes: `p50 ${num(j, 'bystander.p50Ms')} ms, max ${num(j, 'bystander.maxMs')} ms over ${num(j, 'bystander.requests')} requests`,
        },
      ];
    },
  },
  {
    name: 'rebuild',
    script: 'rebuild.ts',
    args: ({ sharedStore }) => ['--keep-dir', sharedStore],
    env: ({ quick }): Record<string, string> => (quick ? { BENCH_EVENTS: '50000' } : {}),
    rows: (j, targets) => [
      {
        benchmark: 'rebuild',
        figure: `rebuild of ${num(j, 'events').toLocaleString('en-US')} events, ${num(j, 'projections')} projections`,
        value: num(j, 'eventsPerSecond'),
        unit: 'events/s',
        baseline: { value: num(j, 'baselineEventsPerSecond'), unit: 'events/s', what: 'read + JSON.parse, no projection' },
        ratio: num(j, 'ratio'),
        target: atLeast(num(j, 'eventsPerSecond'), targets.rebuildEventsPerSecond, `>= ${targets.rebuildEventsPerSecond.toLocaleString('en-US')} events/s`),
        notes: `peak RSS ${withUnit(num(j, 'peakRssMiB'), 'MiB')}`,
      },
    ],
  },
  {
    name: 'startup',
    script: 'startup.ts',
    // the store the rebuild left; without it (the rebuild failed) startup.ts makes its own
    args: ({ quick, sharedStore, sharedStoreReady }) => [
      ...(sharedStoreReady ? ['--data-dir', sharedStore] : ['--events', quick ? '50000' : '1000000']),
      '--runs',
      quick ? '1' : '3',
    ],
    rows: (j, targets) => {
      const events = num(j, 'events').toLocaleString('en-US');
      const notes = `ratio: empty-store time / this time${j.catchingUp ? '; the read models were still catching up' : ''}`;
      return [
        {
          benchmark: 'startup',
          figure: `start-up with ${events} events: spawn to first 200 of GET /info`,
          value: num(j, 'infoMs') / 1000,
          unit: 's',
          baseline: { value: num(j, 'baselineInfoMs') / 1000, unit: 's', what: 'same start, empty store' },
          ratio: num(j, 'baselineInfoMs') / num(j, 'infoMs'),
          target: below(num(j, 'infoMs') / 1000, targets.startupSeconds, `< ${targets.startupSeconds} s`),
          notes,
        },
        {
          benchmark: 'startup',
          figure: `start-up with ${events} events: spawn to first 200 of GET /tx/:id/status`,
          value: num(j, 'statusMs') / 1000,
          unit: 's',
          baseline: { value: num(j, 'baselineStatusMs') / 1000, unit: 's', what: 'same start, empty store (404)' },
          ratio: num(j, 'ratio'),
          target: below(num(j, 'statusMs') / 1000, targets.startupSeconds, `< ${targets.startupSeconds} s`),
          notes,
        },
        {
          benchmark: 'startup',
          figure: 'idle RSS of the service as `npm start` runs it (compiled), empty store',
          value: num(j, 'baselineIdleRssMiB'),
          unit: 'MiB',
          baseline: { value: num(j, 'sourcesIdleRssMiB'), unit: 'MiB', what: 'the same start from the sources under tsx' },
          ratio: num(j, 'baselineIdleRssMiB') / num(j, 'sourcesIdleRssMiB'),
          notes: `5 s after its first answers; with ${events} events: ${num(j, 'idleRssMiB')} MiB; first /info from the sources under tsx: ${withUnit(num(j, 'sourcesInfoMs') / 1000, 's')} (compiled: ${withUnit(num(j, 'baselineInfoMs') / 1000, 's')})`,
        },
      ];
    },
  },
  {
    name: 'status-queries',
    script: 'status-queries.ts',
    args: ({ quick }) => (quick ? ['--items', '300', '--seconds', '3', '--rounds', '1'] : []),
    rows: (j, targets) => {
      const paced = typeof j.uploadRate === 'number' ? ` (paced at ${j.uploadRate}/s)` : ` (as fast as ${num(j, 'uploadClients')} clients could)`;
      const load = `${num(j, 'concurrency')} clients, ${num(j, 'items')} items, ${num(j, 'uploadsPerSecond')} uploads/s alongside${paced}${j.uploadPoolRanOut ? ' (upload pool ran out)' : ''}`;
      return [
        {
          benchmark: 'status-queries',
          figure: `GET /tx/:id/status under upload load`,
          value: num(j, 'queriesPerSecond'),
          unit: 'queries/s',
          baseline: { value: num(j, 'baselineQueriesPerSecond'), unit: 'queries/s', what: 'bare node:http, same body, same clients' },
          ratio: num(j, 'ratio'),
          target: atLeast(num(j, 'ratio'), targets.statusQueryRatio, `ratio >= ${targets.statusQueryRatio}`),
          notes:
            `${Array.isArray(j.ratios) && j.ratios.length > 1 ? `median of ${j.ratios.length} rounds, each against its own baseline (ratios ${j.ratios.join(', ')}); ` : ''}${load}; ${num(j, 'errors')} errors, ${num(j, 'uploadErrors')} upload errors` +
            (typeof j.serviceCpuUsPerQuery === 'number' && typeof j.baselineCpuUsPerQuery === 'number'
              ? `; CPU per query ${num(j, 'serviceCpuUsPerQuery')} µs in the service (the uploads' included), ${num(j, 'baselineCpuUsPerQuery')} µs in the bare server`
              : ''),
        },
        {
          benchmark: 'status-queries',
          figure: `GET /tx/:id/status p99 latency`,
          value: num(j, 'p99Ms'),
          unit: 'ms',
          baseline: { value: num(j, 'baselineP99Ms'), unit: 'ms', what: 'bare node:http' },
          notes: `p50 ${num(j, 'p50Ms')} ms`,
        },
      ];
    },
  },
  {
    name: 'chunk-flood',
    script: 'chunk-flood.ts',
    args: ({ quick }) => (quick ? ['--seconds', '3', '--prefill', '200'] : []),
    rows: (j) => [
      {
        benchmark: 'chunk-flood',
        figure: `a bystander's multi-part uploads under a flood of ${num(j, 'chunkBytes')}-byte chunks into an upload of ${num(j, 'prefilledChunks')}`,
        value: num(j, 'bystanderUnderFlood.perSecond'),
        unit: 'uploads/s',
        baseline: { value: num(j, 'bystanderAlone.perSecond'), unit: 'uploads/s', what: 'the same bystander alone, same run' },
        ratio: num(j, 'ratio'),
        notes: `${num(j, 'floodChunksStored')} flood chunks stored meanwhile; p99 ${num(j, 'bystanderUnderFlood.p99Ms')} ms (alone ${num(j, 'bystanderAlone.p99Ms')} ms)`,
      },
    ],
  },
  {
    name: 'graphql',
    script: 'graphql.ts',
    args: ({ quick }) => (quick ? ['--items', '20000', '--queries', '60'] : []),
    rows: (j, targets) =>
      (['tag', 'owner'] as const).map((search) => ({
        benchmark: 'graphql',
        figure: `GraphQL transactions(${search === 'tag' ? 'one tag' : 'one owner'}, first: 100) p99 over ${num(j, 'items')} items`,
        value: num(j, `${search}.p99Ms`),
        unit: 'ms',
        baseline: {
          value: num(j, `${search}.bareP99Ms`),
          unit: 'ms',
          what: 'the same lookup as a bare indexed query (findByKey) on the same store, answered by the same server over the same HTTP',
        },
        ratio: num(j, `${search}.ratio`),
        target: atLeast(num(j, `${search}.ratio`), targets.graphqlRatio, `ratio >= ${targets.graphqlRatio}`),
        notes:
          `p50 ${num(j, `${search}.p50Ms`)} ms (bare ${num(j, `${search}.bareP50Ms`)} ms); the store alone, no HTTP: p50 ${num(j, `${search}.storeP50Ms`)} ms, ` +
          `p99 ${num(j, `${search}.storeP99Ms`)} ms (over GraphQL's p99: ${num(j, `${search}.storeRatio`)}); an empty HTTP request on the same server: ` +
          `p99 ${num(j, `${search}.httpP99Ms`)} ms; read model ${num(j, 'bytesPerItem')} bytes per item`,
      })),
  },
  {
    name: 'optical-bridge',
    script: 'optical-bridge.ts',
    // three rounds: the median of two is their mean, and a round's ratio moves by several hundredths with the neighbours' load
    args: ({ quick }) => (quick ? ['--seconds', '3', '--warmup', '1'] : ['--rounds', '3']),
    rows: (j, targets) => [
      {
        benchmark: 'optical-bridge',
        figure: `1 KiB uploads with the optical bridge on, posting to a sink gateway, ${num(j, 'concurrency')} clients`,
        value: num(j, 'uploadsPerSecondBridgeOn'),
        unit: 'uploads/s',
        baseline: { value: num(j, 'uploadsPerSecondBridgeOff'), unit: 'uploads/s', what: 'the same uploads with the bridge off, same run' },
        ratio: num(j, 'ratio'),
        target: atLeast(num(j, 'ratio'), targets.opticalBridgeRatio, `ratio >= ${targets.opticalBridgeRatio}`),
        notes:
          `backlog ${num(j, 'backlogFirstThird')} items in the first third of the run, ${num(j, 'backlogLastThird')} in the last, peak ${num(j, 'backlogPeak')}; ` +
          `drained ${num(j, 'drainSeconds')} s after the load; ${num(j, 'postsPerSecond')} posts/s of ${num(j, 'headersPerPost')} headers; ${num(j, 'errors')} upload errors` +
          (typeof j.cpuMsPerUploadBridgeOn === 'number'
            ? `; CPU per upload ${num(j, 'cpuMsPerUploadBridgeOn')} ms on, ${num(j, 'cpuMsPerUploadBridgeOff')} ms off`
            : ''),
      },
      {
        benchmark: 'optical-bridge',
        figure: `1 KiB uploads with the optical bridge and the GraphQL read model on, ${num(j, 'concurrency')} clients`,
        value: num(j, 'uploadsPerSecondBridgeOn'),
        unit: 'uploads/s',
        baseline: { value: num(j, 'uploadsPerSecondAllOff'), unit: 'uploads/s', what: 'the same uploads with both off (GRAPHQL_ENABLED=false), same run' },
        ratio: num(j, 'allRatio'),
        target: atLeast(num(j, 'allRatio'), targets.bridgeAndGraphqlRatio, `ratio >= ${targets.bridgeAndGraphqlRatio}`),
        notes:
          typeof j.cpuMsPerUploadAllOff === 'number'
            ? `CPU per upload ${num(j, 'cpuMsPerUploadBridgeOn')} ms on, ${num(j, 'cpuMsPerUploadAllOff')} ms off (ratio ${num(j, 'allCpuRatio')})` +
              (typeof j.mainCpuMsPerUpload === 'object'
                ? `; the main thread's ${num(j, 'mainCpuMsPerUpload.both')} ms both on, ${num(j, 'mainCpuMsPerUpload.graphqlOnly')} GraphQL alone, ` +
                  `${num(j, 'mainCpuMsPerUpload.none')} both off`
                : '')
            : '',
      },
    ],
  },
  {
    name: 'nested-index',
    script: 'nested-index.ts',
    args: ({ quick }) => (quick ? ['--entries', '500'] : []),
    rows: (j) => [
      {
        benchmark: 'nested-index',
        figure: `worst GET /info while a free item of ${num(j, 'entries')} forged nested entries is uploaded and indexed`,
        value: num(j, 'worstInfoMs'),
        unit: 'ms',
        baseline: { value: num(j, 'baselineWorstInfoMs'), unit: 'ms', what: 'the same window with nothing else happening' },
        notes: `event loop worst delay ${num(j, 'worstLoopDelayMs')} ms (baseline ${num(j, 'baselineWorstLoopDelayMs')} ms); upload answered in ${num(j, 'uploadMs')} ms, indexed in ${num(j, 'indexedSeconds')} s`,
      },
    ],
  },
  {
    name: 'per-item-costs',
    script: 'per-item-costs.ts',
    args: ({ quick }) => (quick ? ['--quick'] : []),
    rows: (j) => perItemCostRows(j),
  },
  {
    name: 'load',
    script: 'load.ts',
    args: ({ quick }) => (quick ? ['--seconds', '5'] : []),
    rows: (j) => {
      const kinds = (j.kinds ?? {}) as Record<string, Json>;
      const ranOut = [
        typeof j.uploadPoolRanOutAtSeconds === 'number' ? `single-upload pool ran out at ${j.uploadPoolRanOutAtSeconds} s` : '',
        typeof j.multipartPoolRanOutAtSeconds === 'number' ? `multi-part pool ran out at ${j.multipartPoolRanOutAtSeconds} s` : '',
      ].filter(Boolean);
      const steps = (j.multipartSteps ?? {}) as Record<string, Json>;
      return [
        {
          benchmark: 'load',
          figure: `${num(j, 'connections')} connections, mixed, ${num(j, 'seconds')} s`,
          value: num(j, 'requestsPerSecond'),
          unit: 'requests/s',
          notes: ranOut.length > 0 ? `${ranOut.join('; ')} (those turned into status queries)` : '',
        },
        {
          benchmark: 'load',
          figure: 'errors (unexpected status or network error)',
          value: num(j, 'errors'),
          unit: '',
          target: { text: '0', met: num(j, 'errors') === 0 },
        },
        ...Object.entries(kinds).map(([kind, k]): Row => ({
          benchmark: 'load',
          figure: `  ${kind}`,
          value: num(k, 'perSecond'),
          unit: 'requests/s',
          notes:
            `p50 ${num(k, 'p50Ms')} ms, p99 ${num(k, 'p99Ms')} ms, ${num(k, 'errors')} errors` +
            (Array.isArray(k.errorSamples) ? `: ${(k.errorSamples as string[]).join('; ')}` : '') +
            (kind === 'multipart'
              ? Object.entries(steps)
                  .map(([name, t]) => `; ${name} p50 ${num(t, 'p50Ms')} ms, p99 ${num(t, 'p99Ms')} ms`)
                  .join('')
              : ''),
        })),
      ];
    },
  },
];

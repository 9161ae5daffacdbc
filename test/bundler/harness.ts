import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { createHeightGuard } from '../../src/adapters/gateway/heightGuard.js';
import { createBundler, type Bundler } from '../../src/app/bundler/bundler.js';
import type { BundlerDeps } from '../../src/app/bundler/deps.js';
import { BundleRepository } from '../../src/app/bundles.js';
import type { BundleCommand } from '../../src/domain/bundle/decider.js';
import { isBundleEvent, type BundleEvent } from '../../src/domain/bundle/events.js';
import type { Bundle, BundleTransaction } from '../../src/domain/bundle/state.js';
import { fromRecorded } from '../../src/domain/events.js';
import type { EventMetadata } from '../../src/ports/eventStore.js';
import { bundleQueueProjection, collectionOf, liveBundlesProjection, type LiveBundle, type QueuedItem } from '../../projections/index.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { startFaultyGateway, type FaultyGateway } from '../support/faultyGateway.js';
import { expectOffsetsInBundle as offsetsInBundle } from '../support/bundleOffsets.js';

/**
 * The service in-process on a data directory that outlives it (so a test can restart it), and a
 * bundler built as the service builds its own, on the service's stores, with two test-only
 * differences: its gateway (the faulty proxy) gives up after `timeoutMs` rather than 30 s, and its
 * clock is a test clock that `retryDue()` moves past any backoff, so no test waits real seconds.
 */
export interface BundlerNode {
  service: RunningService;
  /** what the bundler was built with, to drive its parts directly */
  deps: BundlerDeps;
  dataDir: string;
  bundler: Bundler;
  /** what the bundler logged (failed steps), for the message of a failing test */
  logs: string[];
  /** moves the bundler's clock past the longest backoff: the next pass retries every bundle */
  retryDue(): void;
  /** retryDue(), then one pass */
  pass(): Promise<void>;
  /**
   * Passes until `done` holds, at most `limit`: a gateway call that outlasts the test's short timeout
   * on a loaded machine fails that pass, as it would a real one, and the next pass takes it up again.
   * Throws with the bundler's log when `done` never holds.
   */
  passUntil(done: () => Promise<boolean>, what: string, limit?: number): Promise<void>;
  /** stops the bundler and the service; the data directory stays */
  stop(): Promise<void>;
}

export interface NodeOptions {
  /** the gateway the bundler talks to (the faulty proxy) */
  gatewayUrl: string;
  /** the gateway the service itself asks for block heights (receipts); default `gatewayUrl` */
  heightUrl?: string;
  /** an existing data directory: a restart */
  dataDir?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** a process that dies just before recording this step (its gateway call done): see CrashingBundles */
  crashBefore?: BundleCommand['type'];
}

export const CONFIRMATIONS = 3;
/** arlocal counts confirmations from 0 (the newest block's transactions have none) */
export const BLOCKS_TO_PERMANENT = CONFIRMATIONS + 1;

/** Records like the real repository, but throws once, instead of appending, on one kind of step. */
class CrashingBundles extends BundleRepository {
  constructor(
    eventStore: ConstructorParameters<typeof BundleRepository>[0],
    private crashBefore: BundleCommand['type'] | undefined,
  ) {
    super(eventStore);
  }

  override execute(command: BundleCommand, metadata: Omit<EventMetadata, 'schemaVersion'>) {
    if (command.type === this.crashBefore) {
      this.crashBefore = undefined;
      return Promise.reject(new Error(`simulated crash before recording ${command.type}`));
    }
    return super.execute(command, metadata);
  }
}

export async function startBundlerNode(options: NodeOptions): Promise<BundlerNode> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'bundler-node-')));
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WALLET_FILE: SERVICE_WALLET_FILE,
    // receipts' block height from `heightUrl` (arlocal itself): uploads do not depend on the faulty proxy
    GATEWAY_URL: options.heightUrl ?? options.gatewayUrl,
    RECEIPT_SIGNER_WORKERS: '1',
    LOG_LEVEL: 'silent',
    BUNDLER_ENABLED: 'false',
    BUNDLE_MAX_WAIT_MS: '0',
    CONFIRMATIONS: String(CONFIRMATIONS),
    ...ARLOCAL_HEIGHT_SETTINGS,
    ...options.env,
  });
  const service = await startService(config, createLogger(config.logLevel));
  let skew = 0;
  const logs: string[] = [];
  const deps: BundlerDeps = {
    eventStore: service.eventStore,
    items: service.items,
    readStore: service.readStore,
    blobStore: service.blobStore,
    gateway: createArweaveGateway({
      gatewayUrl: options.gatewayUrl,
      timeoutMs: options.timeoutMs ?? 600,
      heights: createHeightGuard({ ...config.heightGuard, log: (message) => logs.push(message) }),
    }),
    jwk: loadTestJwk(),
    bundles: new CrashingBundles(service.eventStore, options.crashBefore),
    settings: config.bundler,
    awaitProjection: (position) => service.projections.waitFor(position, config.projectionWaitMs),
    now: () => Date.now() + skew,
    // a retry is due once the backoff passed on the monotonic clock: the test moves both
    monotonic: () => performance.now() + skew,
    log: (message, error) => logs.push(`${message}: ${error instanceof Error ? error.message : String(error ?? '')}`),
  };
  const bundler = createBundler(deps);
  const retryDue = () => {
    skew += 61_000;
  };
  return {
    service,
    deps,
    dataDir,
    bundler,
    logs,
    retryDue,
    async pass() {
      retryDue();
      await bundler.runOnce();
    },
    async passUntil(done, what, limit = 20) {
      for (let i = 0; i < limit; i++) {
        retryDue();
        await bundler.runOnce();
        if (await done()) return;
      }
      throw new Error(`${what}: not after ${limit} passes; the bundler logged:\n${logs.join('\n')}`);
    },
    async stop() {
      await bundler.stop();
      await service.stop();
    },
  };
}

/** Signed items of these raw sizes, uploaded (each free: under the free limit). */
export async function uploadItems(service: RunningService, sizes: readonly number[]): Promise<DataItem[]> {
  const items: DataItem[] = [];
  for (const size of sizes) {
    const item = await itemOfSize(signers.ethereum(), size);
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status, await res.text()).to.equal(200);
    items.push(item);
  }
  return items;
}

export async function statusOf(service: RunningService, id: string): Promise<{ status: string; info: string; bundleId?: string }> {
  const res = await fetch(`${service.url}/tx/${id}/status`);
  expect(res.status).to.equal(200);
  const { status, info, bundleId } = await res.json();
  return bundleId === undefined ? { status, info } : { status, info, bundleId };
}

export const statusesOf = (service: RunningService, items: readonly DataItem[]) => Promise.all(items.map((i) => statusOf(service, i.id)));

/** Every bundle event recorded so far, in order. */
export async function bundleEvents(service: RunningService): Promise<BundleEvent[]> {
  const events: BundleEvent[] = [];
  for await (const recorded of service.eventStore.readAll()) {
    const event = fromRecorded(recorded);
    if (event && isBundleEvent(event)) events.push(event);
  }
  return events;
}

export const ofType = <T extends BundleEvent['type']>(events: readonly BundleEvent[], type: T) =>
  events.filter((e): e is Extract<BundleEvent, { type: T }> => e.type === type);

/** The plan ids that hold `id`, in planning order. */
export async function plansOf(service: RunningService, id: string): Promise<string[]> {
  return ofType(await bundleEvents(service), 'BundlePlanned')
    .filter((e) => e.data.items.some((i) => i.id === id))
    .map((e) => e.data.planId);
}

/** a bundle as the tests look at it: any state, its transaction's fields asked for whatever the state */
export type BundleView = (Bundle & Partial<BundleTransaction> & { blockHeight?: number }) | undefined;

export async function bundleState(service: RunningService, planId: string): Promise<BundleView> {
  return new BundleRepository(service.eventStore).read(planId);
}

export async function queued(service: RunningService, id: string): Promise<QueuedItem | undefined> {
  return (await service.readStore.get<QueuedItem>(collectionOf(bundleQueueProjection), id))?.doc;
}

export async function liveBundleIds(service: RunningService): Promise<string[]> {
  return (await service.readStore.scan<LiveBundle>(collectionOf(liveBundlesProjection), { limit: 1000 })).map((b) => b.id);
}

/** Each item's offsets point at its own bytes in the bundle arlocal serves (support/bundleOffsets.ts). */
export const expectOffsetsInBundle = (service: RunningService, arlocal: Arlocal, items: readonly DataItem[], bundleId: string): Promise<void> =>
  offsetsInBundle(service.url, arlocal, items, bundleId);

/**
 * The hooks of a suite of bundler nodes behind a faulty proxy of one arlocal: arlocal for the whole
 * suite, a fresh proxy for each test (its slow answers `slowMs` late), and every node a test started
 * stopped and its data directory removed after the test. `start` makes a node on them.
 */
export function bundlerNodesOnArlocal(slowMs: number) {
  return bundlerNodesBehind((arlocalUrl) => startFaultyGateway(arlocalUrl, { slowMs }));
}

/**
 * The hooks of a suite of bundler nodes behind a gateway of the test's (started fresh for each test
 * in front of the suite's one arlocal, closed after it): every node a test started is stopped and its
 * data directory removed after the test. `start` makes a node on them.
 */
export function bundlerNodesBehind<G extends { url: string; close(): Promise<void> }>(startGateway: (arlocalUrl: string) => Promise<G>) {
  let arlocal: Arlocal | undefined;
  let gateway: G | undefined;
  const nodes: BundlerNode[] = [];
  before(async () => {
    arlocal = await startArlocal();
  });
  beforeEach(async () => {
    gateway = await startGateway(arlocal!.url);
  });
  afterEach(async () => {
    for (const node of nodes.splice(0)) {
      await node.stop().catch(() => {});
      await rm(node.dataDir, { recursive: true, force: true });
    }
    await gateway?.close();
  });
  after(async () => {
    await arlocal?.stop();
  });
  return {
    get arlocal(): Arlocal {
      return arlocal!;
    },
    get gateway(): G {
      return gateway!;
    },
    /** a node whose receipts take their block height from arlocal itself and whose bundler goes through the gateway */
    async start(options: Partial<NodeOptions> = {}): Promise<BundlerNode> {
      const node = await startBundlerNode({ heightUrl: arlocal!.url, gatewayUrl: gateway!.url, ...options });
      nodes.push(node);
      return node;
    },
  };
}

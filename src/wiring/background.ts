import type { ProjectionRunner } from '../../projections/runner.js';
import { createProjectionRunner } from '../../projections/runner.js';
import { createCheckpointWaiter } from '../../projections/checkpointWaiter.js';
import { projectionsOf } from '../../projections/index.js';
import { warningsTo } from '../log.js';
import { anchoredWall, createStampAges } from '../clock.js';
import { expireUploads } from '../app/multipart/expirer.js';
import { recoverNestedIndexes } from '../app/nested/recoverNested.js';
import { every } from '../app/periodic.js';
import { createBlobSweep } from '../app/blobSweep.js';
import { createBundler } from '../app/bundler/bundler.js';
import { BundleRepository } from '../app/bundles.js';
import { LeaseFence } from '../app/bundler/fence.js';
import { createReconciler } from '../app/accounts/reconciler.js';
import { createOpticalBridge } from '../app/bridge/bridge.js';
import { createRefunder } from '../app/accounts/refunder.js';
import { createX402Recovery } from '../app/x402/recovery.js';
import { createRetention } from '../app/retention/retention.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Wiring } from './context.js';
import type { Stores } from './stores.js';
import type { Shared } from './shared.js';
import type { CommandSide } from './commands.js';

/** the recovery leaves a pending index this long to the process that accepted the item (it starts at once) */
const NESTED_INDEX_GRACE_MS = 10_000;

/**
 * The projector (where it runs): the read models, caught up with what was written before a restart
 * before anything answers from them (bounded: a large backlog delays start-up by at most STARTUP_CATCH_UP_MS).
 */
export async function startProjector(life: Lifecycle, { config, log, roles, signing }: Wiring, { eventStore, readStore, leases }: Stores) {
  const runner = createProjectionRunner({
    eventStore,
    readStore,
    projections: projectionsOf({ graphql: config.graphqlEnabled }),
    // while receipts are being signed (each followed by its item's append), a batch waits for their events;
    // not for other appends (a multi-part upload's chunks, each answered once projected: never held)
    batchWait: { ms: config.projectionBatchWaitMs, moreComing: () => signing.count() > 0 },
    holdLease: leases.hold('projector'),
    leaseRenewMs: 1_000,
    log: (message, error) => log.error(message, error),
  });
  const catchUp = async () => {
    await runner.start();
    const head = await eventStore.headPosition();
    if (head > 0n && !(await runner.waitFor(head, config.startupCatchUpMs))) {
      log.warn('read models still catching up at start-up', { head: head.toString() });
    }
  };
  await life.start({ name: 'projector', start: () => roles.projector && catchUp(), stop: () => runner.stop() });
  return runner;
}

/** In one process, a command answers once the read models show it; split, nobody waits here. */
export function awaitProjectionOf({ config, roles }: Wiring, runner: ProjectionRunner) {
  return roles.projector && roles.commands ? (position: bigint) => runner.waitFor(position, config.projectionWaitMs) : undefined;
}

/**
 * The work nobody asks for, each under its lease where only one process may do it: the reconciler of
 * stale reservations, the refunder of FAILED items' charges, the maintenance pass (finalizations to resume,
 * uploads to expire, nested indexes to recover), the orphan blob sweep, the bundler, the top-ups still
 * pending, the optical bridge.
 */
export async function startBackgroundWork(life: Lifecycle, w: Wiring, stores: Stores, shared: Shared, commands: CommandSide) {
  const { config, log, roles, now } = w;
  const { eventStore, readStore, leases } = stores;
  const reconciler = createReconciler({
    items: shared.items,
    readStore,
    accounts: shared.accounts,
    reservationTimeoutMs: config.reservationTimeoutMs,
    intervalMs: config.reconcileIntervalMs,
    holdLease: leases.hold('reconciler'),
    now,
    log: (message, error) => log.error(message, error),
  });
  await life.start({ name: 'reconciler', start: () => roles.commands && reconciler.start(), stop: () => reconciler.stop() });
  // FAILED items' charges given back, on the reconciler's beat: both heal accounts after the fact
  const refunder = createRefunder({
    items: shared.items,
    readStore,
    accounts: shared.accounts,
    intervalMs: config.reconcileIntervalMs,
    holdLease: leases.hold('refunder'),
    now,
    log: (message, error) => log.error(message, error),
  });
  await life.start({ name: 'refunder', start: () => roles.commands && refunder.start(), stop: () => refunder.stop() });
  const x402Recovery = await startX402Recovery(life, w, stores, shared, commands);
  const expire = await startMaintenance(life, w, stores, commands);
  await startBlobSweep(life, w, stores, shared);
  const checkpoints = createCheckpointWaiter(readStore, projectionsOf({ graphql: w.config.graphqlEnabled }));
  const awaitProjection = commands.awaitProjection ?? ((position: bigint) => checkpoints.waitFor(position, config.projectionWaitMs));
  const retention = await startRetention(life, w, stores, shared, awaitProjection);
  const bundler = createBundler({
    eventStore,
    items: shared.items,
    readStore,
    blobStore: stores.blobStore,
    gateway: shared.gateway,
    funds: shared.funds,
    jwk: stores.wallet.jwk,
    bundles: new BundleRepository(eventStore),
    settings: shared.profile.bundlerSettings(config.bundler),
    holdLease: leases.hold('bundler'),
    fence: new LeaseFence(eventStore, w.instanceId, now),
    // planning must see its own plans in the queue read model: waited for here or across processes
    awaitProjection,
    log: warningsTo(log),
    now,
    monotonic: w.clocks.monotonic,
  });
  const startBundler = () => {
    shared.funds.start();
    bundler.start(config.bundler.intervalMs);
  };
  const stopBundler = async () => {
    await bundler.stop();
    await shared.funds.stop();
  };
  await life.start({ name: 'bundler', start: () => w.bundlerRuns && startBundler(), stop: stopBundler });
  const { topUps } = commands;
  if (roles.commands && topUps.tokens().length > 0) {
    const pass = async () => {
      if (await leases.hold('top-ups')()) await topUps.creditPending();
    };
    await life.open(
      'top-ups pass',
      () => every(config.topUps.checkIntervalMs, pass, (message, error) => log.error(`top-ups: ${message}`, error)),
      (periodic) => periodic.stop(),
    );
  }
  const opticalBridge = await startOpticalBridge(life, w, stores, shared, commands);
  return { reconciler, refunder, x402Recovery, bundler, expire, opticalBridge, retention };
}

/**
 * x402 settlements a crash or a lost answer left started, ended from the chain on the reconciler's beat
 * (credited when settled, failed once expired unused), where uploads are taken, under its lease.
 */
async function startX402Recovery(life: Lifecycle, { config, log, roles, now }: Wiring, { readStore, leases }: Stores, shared: Shared, commands: CommandSide) {
  const side = commands.x402;
  if (!side || !config.x402) return undefined;
  const recovery = createX402Recovery({
    networks: side.networks,
    payments: side.payments,
    accounts: shared.accounts,
    readStore,
    // longer than an upload's own settlement may take (a settlement not mined within six RPC timeouts ends unknown)
    graceMs: 7 * config.x402.rpcTimeoutMs,
    intervalMs: config.reconcileIntervalMs,
    holdLease: leases.hold('x402-recovery'),
    now,
    log: (message, error) => log.error(message, error),
  });
  await life.start({ name: 'x402 recovery', start: () => roles.commands && recovery.start(), stop: () => recovery.stop() });
  return recovery;
}

/**
 * The optical bridge, where uploads are taken (it reads their blobs), one process at a time under its
 * lease: each accepted item's signed header, nested items' too, posted to the configured gateways.
 */
async function startOpticalBridge(life: Lifecycle, { config, log, roles, now, clocks }: Wiring, stores: Stores, shared: Shared, commands: CommandSide) {
  const { gateways, healthWindowMs: _, ...settings } = config.opticalBridge;
  if (!roles.commands || gateways.length === 0) return undefined;
  const bridge = createOpticalBridge({
    eventStore: stores.eventStore,
    readStore: stores.readStore,
    blobStore: stores.blobStore,
    ...(commands.acceptedHeaders ? { accepted: commands.acceptedHeaders } : {}),
    items: shared.items,
    gateways,
    settings,
    health: commands.bridgeHealth,
    holdLease: stores.leases.hold('optical-bridge'),
    now,
    monotonic: clocks.monotonic,
    log: (message, fields) => log.warn(message, fields),
  });
  await life.start({ name: 'optical bridge', start: () => bridge.start(), stop: () => bridge.stop() });
  return bridge;
}

/** the maintenance pass, where uploads are taken: returns the expiry of uploads past their lifetime (tests run it) */
async function startMaintenance(life: Lifecycle, { config, log, roles, clocks, now }: Wiring, { readStore }: Stores, commands: CommandSide) {
  const { multipart, finalizer, nestedIndex } = commands;
  // ages of the uploads' stamps, seen by this process: kept from one maintenance pass to the next
  const uploadAges = createStampAges(clocks);
  const expire = () => expireUploads(multipart, readStore, config.uploadLifetimes, uploadAges);
  const pass = async () => {
    await finalizer.resume();
    await expire();
    // queued, not awaited: a large index must not hold up the next pass
    await recoverNestedIndexes(
      { readStore, index: async (rootId) => nestedIndex.enqueue(rootId, { correlationId: 'nested-index-recovery' }) },
      { now: now(), graceMs: NESTED_INDEX_GRACE_MS },
    );
  };
  if (roles.commands) {
    const start = () => every(60_000, pass, (message, error) => log.error(message, error));
    await life.open('maintenance', start, (periodic) => periodic.stop());
    // the finalizations a previous process left, at once
    await life.start({ name: 'finalizations resumed', start: () => finalizer.resume() });
  }
  return expire;
}

/**
 * The retention of permanent items' bytes (RETAIN_PERMANENT_BYTES_MS; -1: none), where uploads are
 * taken, one process at a time; returned for tests, which run its passes themselves.
 */
async function startRetention(life: Lifecycle, w: Wiring, stores: Stores, shared: Shared, awaitProjection: (position: bigint) => Promise<boolean>) {
  const { config, log, roles, clocks, now } = w;
  if (!roles.commands || config.retention.retainMs < 0) return undefined;
  const retention = createRetention({
    readStore: stores.readStore,
    items: shared.items,
    bundles: new BundleRepository(stores.eventStore),
    blobStore: stores.blobStore,
    retainMs: config.retention.retainMs,
    clock: anchoredWall(clocks),
    awaitProjection,
    intervalMs: config.retention.intervalMs,
    holdLease: stores.leases.hold('retention'),
    now,
    retired: (bytes) => shared.metrics.bytesRetired(bytes),
    log: (message, error) => (error === undefined ? log.warn(message) : log.error(message, error)),
  });
  await life.start({ name: 'retention', start: () => retention.start(), stop: () => retention.stop() });
  return retention;
}

/** blobs no event owns (what a crash left), removed where uploads are taken, by one process at a time */
async function startBlobSweep(life: Lifecycle, { config, log, roles, now }: Wiring, { eventStore, blobStore, leases }: Stores, { metrics }: Shared) {
  if (!roles.commands || !config.blobSweep.enabled) return;
  const stopped = new AbortController();
  const sweep = createBlobSweep({
    eventStore,
    blobStore,
    graceMs: config.blobSweep.graceMs,
    now,
    log,
    removed: (orphan) => metrics.orphanBlobRemoved(orphan.blob.key.split('/')[0]!),
  });
  const pass = async () => {
    if (await leases.hold('blob-sweep')()) await sweep.pass(stopped.signal);
  };
  const start = () => {
    const periodic = every(config.blobSweep.intervalMs, pass, (message, error) => log.error(`orphan blob sweep: ${message}`, error));
    // at once: the grace period a pass waits out starts with the first pass that sees an orphan
    periodic.now();
    return periodic;
  };
  const stop = async (periodic: ReturnType<typeof every>) => {
    stopped.abort();
    await periodic.stop();
  };
  await life.open('blob sweep', start, stop);
}

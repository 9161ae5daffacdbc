import { collectionOf, liveBundlesProjection, type LiveBundle } from '../../../projections/index.js';
import { every } from '../periodic.js';
import { advanceBundle, type TreeCache } from './advance.js';
import { LeaseLost } from '../../domain/bundle/lease.js';
import type { BundlerDeps } from './deps.js';
import { failExhaustedItems } from './failItems.js';
import { planBundles } from './plan.js';
import { createStampAges } from '../../clock.js';
import { bestEffort } from '../../bestEffort.js';
import { treeBlobKey } from '../../bundling/index.js';

/** After a failed step a bundle waits 1 s, 2 s, 4 s... up to a minute before the next try. */
const backoffMs = (failures: number) => Math.min(60_000, 1000 * 2 ** Math.min(failures - 1, 6));

/** the steps that wait on nobody: a pass takes a bundle through them back to back */
const UNATTENDED: ReadonlySet<string> = new Set(['planned', 'prepared', 'posted']);

/**
 * The bundler (a process manager; one active instance): each pass plans what is due, then moves
 * every live bundle one step forward. A gateway failure delays that bundle only, with backoff
 * (`deps.monotonic` tells when a retry is due). Passes never overlap: a pass asked for while one runs
 * starts after it, so two passes cannot plan the same items or post the same chunks at once.
 */
export function createBundler(given: BundlerDeps) {
  // What the queue must reflect before a plan: the event store's head when this process started
  // (plans and drops of an earlier process), then each of this bundler's own writes. Not the head
  // at every pass: under a stream of uploads the projector may trail it, and planning would stall.
  let reflect: bigint | undefined;
  const awaitProjection = given.awaitProjection;
  // every bundle command under this instance's fencing token: once another instance took the lease, none is appended
  const fenced: BundlerDeps = given.fence ? { ...given, bundles: given.fence.fenced(given.bundles) } : given;
  const deps: BundlerDeps = awaitProjection
    ? {
        ...fenced,
        awaitProjection(position) {
          if (reflect === undefined || position > reflect) reflect = position;
          return awaitProjection(position);
        },
      }
    : fenced;
  const log = deps.log ?? (() => {});
  const { monotonic = () => performance.now() } = deps;
  /** how long each queued item has waited, seen pass after pass (plan.ts) */
  const waits = createStampAges({ wall: deps.now, monotonic });
  const trees: TreeCache = new Map();
  const failures = new Map<string, { count: number; retryAt: number }>();
  // aborted by stop(): a shutdown does not wait for a 2 GiB upload to end (the step is redone later)
  const stopping = new AbortController();

  async function liveBundles(): Promise<string[]> {
    const ids: string[] = [];
    let afterId: string | undefined;
    for (;;) {
      const page = await deps.readStore.scan<LiveBundle>(collectionOf(liveBundlesProjection), { ...(afterId ? { afterId } : {}), limit: 1000 });
      ids.push(...page.map((p) => p.id));
      if (page.length < 1000) return ids;
      afterId = page[page.length - 1]!.id;
    }
  }

  async function step(planId: string): Promise<void> {
    const failure = failures.get(planId);
    if (failure && failure.retryAt > monotonic()) return;
    try {
      for (let bundle = await deps.bundles.read(planId); bundle && !stopping.signal.aborted;) {
        const before = bundle.status;
        await advanceBundle(deps, bundle, trees, stopping.signal);
        failures.delete(planId);
        const after = await deps.bundles.read(planId);
        if (after?.status === 'dropped' && before !== 'dropped') {
          // an operator's hold may have dropped it while it was being signed (src/app/quarantine.ts): its tree is no one's
          if (trees.delete(planId)) await bestEffort(deps.blobStore.delete(treeBlobKey(planId)), 'a tree left behind is never read');
          await failExhaustedItems(
            deps,
            after.items.map((i) => i.id),
          );
        }
        if (!after || after.status === before || !UNATTENDED.has(after.status)) break;
        bundle = after;
      }
    } catch (error) {
      if (stopping.signal.aborted) return;
      if (error instanceof LeaseLost) throw error;
      const count = (failure?.count ?? 0) + 1;
      failures.set(planId, { count, retryAt: monotonic() + backoffMs(count) });
      log(`bundle ${planId}: step failed (attempt ${count}), retrying later`, error);
    }
  }

  async function pass(): Promise<void> {
    if (stopping.signal.aborted) return;
    // one active bundler across processes: the others wait until its lease runs out
    if (deps.holdLease && !(await held())) return;
    // the lease's fencing token: kept while held, a new one on becoming the active instance
    if (deps.fence && !(await deps.fence.take())) return;
    // renewed while a long step runs (preparing or posting a large bundle takes minutes)
    const heartbeat = deps.holdLease && setInterval(() => void bestEffort(held(), 'renewed again a second later'), 1_000);
    try {
      await passHoldingLease();
    } catch (error) {
      // another instance took over while this one was paused: it stops here and waits for the lease
      if (!(error instanceof LeaseLost)) throw error;
      log('bundler: lease lost to another instance, pass stopped', error);
    } finally {
      clearInterval(heartbeat || undefined);
    }
  }

  async function held(): Promise<boolean> {
    const holds = await deps.holdLease!();
    if (!holds) deps.fence?.release();
    return holds;
  }

  async function passHoldingLease(): Promise<void> {
    reflect ??= await deps.eventStore.headPosition();
    await planBundles(deps, reflect, waits);
    const live = await liveBundles();
    deps.funds?.retain(new Set(live));
    for (const planId of live) {
      if (stopping.signal.aborted) return;
      await step(planId);
    }
  }

  let tail: Promise<void> = Promise.resolve();
  function runOnce(): Promise<void> {
    const next = tail.then(pass);
    tail = next.catch(() => {}); // handled: the pass's failure is its caller's, the next pass runs either way
    return next;
  }

  let periodic: ReturnType<typeof every> | undefined;
  return {
    runOnce,
    start(intervalMs: number) {
      periodic = every(intervalMs, runOnce, (message, error) => log(`bundler: ${message}`, error));
    },
    async stop() {
      stopping.abort();
      await periodic?.stop();
      await tail;
    },
  };
}
export type Bundler = ReturnType<typeof createBundler>;

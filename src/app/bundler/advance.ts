import {
  BundleBlobMismatch,
  BundleChunkMismatch,
  BundleDataRootChanged,
  BundleItemsDamaged,
  bundleLayout,
  checkedBundleBytes,
  computeDataRoot,
  PostedChunks,
  postChunks,
  prepareBundle,
  saveTree,
  treeBlobKey,
  type DataTree,
} from '../../bundling/index.js';
import { itemBlobKey } from '../../domain/ids.js';
import type { Bundle, SignedBundle } from '../../domain/bundle/state.js';
import type { ArweaveGateway, GatewayCallOptions, TransactionHeader } from '../../ports/gateway.js';
import type { MinedBlock } from '../../domain/bundle/events.js';
import { GatewayRejected, GatewayRequestError } from '../../ports/gatewayErrors.js';
import { acceptedDigests, heldItems } from './acceptances.js';
import { dropForDamage } from './damage.js';
import { BUNDLER, type BundlerDeps } from './deps.js';
import { unseenPastAnchor } from './expiry.js';
import { bestEffort } from '../../bestEffort.js';

/**
 * What this process knows of a prepared bundle's data: its tree, and which of its chunks the
 * gateway took. After a restart the tree is computed again and the chunks go up from the first.
 */
export interface Upload {
  tree: DataTree;
  /** the chunks taken: a retry after a failed chunk posts only the others */
  posted: PostedChunks;
}
export type TreeCache = Map<string, Upload>;

const layoutOf = (bundle: Bundle) => bundleLayout(bundle.items.map(({ id, size }) => ({ id, size, blobKey: itemBlobKey(id) })));

/** the layout with each item's accepted sha256, so its blob is checked while the data root is computed */
async function checkedLayoutOf(deps: BundlerDeps, bundle: Bundle) {
  const digests = await acceptedDigests(
    deps.eventStore,
    bundle.items.map((i) => i.id),
  );
  return bundleLayout(bundle.items.map(({ id, size }) => ({ id, size, blobKey: itemBlobKey(id), sha256: digests.get(id)! })));
}

/**
 * The prepared bundle's tree: known in this process, or computed again (after a restart, or a
 * chunk that no longer matched) while every blob is checked against its acceptance. Throws
 * BundleItemsDamaged when blobs changed, BundleDataRootChanged when they are intact and still
 * give another root (no data could ever match the signed transaction).
 */
async function uploadOf(deps: BundlerDeps, bundle: SignedBundle, trees: TreeCache): Promise<Upload> {
  const known = trees.get(bundle.planId);
  if (known) return known;
  const tree = await computeDataRoot(checkedBundleBytes(deps.blobStore, (await checkedLayoutOf(deps, bundle)).items));
  const root = Buffer.from(tree.dataRoot).toString('base64url');
  if (root !== bundle.dataRoot) throw new BundleDataRootChanged(bundle.dataRoot, root);
  // a bundle prepared by a version that kept no trees gets its proofs from here on
  await saveTree(deps.blobStore, bundle.planId, tree);
  const upload = { tree, posted: new PostedChunks(tree.chunkCount) };
  trees.set(bundle.planId, upload);
  return upload;
}

/**
 * Items held (quarantined) since the bundle was planned, from their own streams (a hold that found no
 * plan yet, src/app/quarantine.ts): the bundle is dropped before it is signed, no attempt counted,
 * and its other items are planned again without them.
 */
async function heldReason(deps: BundlerDeps, bundle: Bundle): Promise<string | undefined> {
  const held = await heldItems(
    deps.eventStore,
    bundle.items.map((i) => i.id),
  );
  return held.length > 0 ? `quarantined before it was signed: ${held.slice(0, 5).join(', ')}${held.length > 5 ? ', ...' : ''}` : undefined;
}

/**
 * Takes one live bundle one step forward and records the step: prepare (data root, signed
 * transaction), post the header, upload the chunks, then follow confirmations until permanent, or
 * drop it when the network has not taken it 50 blocks after its anchor. Each step repeated after a
 * crash is harmless: the same signed transaction is posted again, chunks are idempotent.
 */
export async function advanceBundle(deps: BundlerDeps, bundle: Bundle, trees: TreeCache, signal?: AbortSignal): Promise<void> {
  const { now } = deps;
  const call = signal ? { signal } : {};
  const { planId } = bundle;
  const record = async (command: Parameters<BundlerDeps['bundles']['execute']>[0]) => {
    const { position } = await deps.bundles.execute(command, BUNDLER);
    if (position !== undefined) await deps.awaitProjection?.(position);
  };
  const forgetTree = async () => {
    trees.delete(planId);
    // a dropped plan's transaction carries no item: nobody asks for its proofs
    await bestEffort(deps.blobStore.delete(treeBlobKey(planId)), 'a tree left behind is about 120 bytes a chunk, never read');
  };
  /** `countsAsAttempt` false: not about this bundle (funds, a header the gateway never took) */
  const drop = async (reason: string, countsAsAttempt = true) => {
    await forgetTree();
    deps.funds?.settled(planId);
    await record({ type: 'Drop', data: { planId, reason, countsAsAttempt, now: now() } });
  };
  /** the bundle cannot be made of the bytes its items' blobs hold now: those items found, the rest re-planned */
  const dropIfDamaged = async (error: unknown): Promise<boolean> => {
    if (error instanceof BundleItemsDamaged) {
      await forgetTree();
      await dropForDamage(deps, bundle, error.damaged, record);
      return true;
    }
    if (error instanceof BundleDataRootChanged) {
      await drop(error.message);
      return true;
    }
    return false;
  };

  switch (bundle.status) {
    case 'planned': {
      const held = await heldReason(deps, bundle);
      if (held) return drop(held, false);
      const reward = await deps.gateway.price(bundle.totalSize, call);
      // the wallet cannot pay: the bundle waits, planned, without an attempt (recorded once)
      if (deps.funds) {
        const { enough, balance } = await deps.funds.canPay(planId, reward, call);
        if (!enough) {
          const data = { planId, reward: reward.toString(), balance: balance.toString(), address: deps.funds.address, now: now() };
          await record({ type: 'AwaitFunds', data });
          return;
        }
      }
      const [anchor, anchorHeight] = await Promise.all([deps.gateway.anchor(call), deps.gateway.currentHeight(call)]);
      let prepared: Awaited<ReturnType<typeof prepareBundle>>;
      try {
        prepared = await prepareBundle({
          blobStore: deps.blobStore,
          layout: await checkedLayoutOf(deps, bundle),
          jwk: deps.jwk,
          anchor,
          reward: reward.toString(),
        });
      } catch (error) {
        if (await dropIfDamaged(error)) return;
        throw error;
      }
      const { tx, tree } = prepared;
      // kept before the transaction is recorded: every recorded root transaction has its proofs
      await saveTree(deps.blobStore, planId, tree);
      trees.set(planId, { tree, posted: new PostedChunks(tree.chunkCount) });
      deps.funds?.settled(planId);
      await record({
        type: 'MarkPrepared',
        data: { planId, txId: tx.id, reward: tx.reward, anchor, anchorHeight, dataRoot: tx.data_root, dataSize: tree.dataSize, tx: { ...tx }, now: now() },
      });
      return;
    }
    case 'prepared':
    case 'posted':
      try {
        // the tree first, also before the header: a transaction whose data cannot follow is never posted
        const upload = await uploadOf(deps, bundle, trees);
        if (bundle.status === 'prepared') {
          await deps.gateway.postTransaction(bundle.tx as unknown as TransactionHeader, call);
          await record({ type: 'MarkPosted', data: { planId, now: now() } });
          return;
        }
        await postChunks({
          blobStore: deps.blobStore,
          layout: layoutOf(bundle),
          tree: upload.tree,
          posted: upload.posted,
          concurrency: deps.settings.chunkConcurrency,
          post: (chunk) => deps.gateway.postChunk(chunk, call),
          ...call,
        });
        // the entry goes once the step is recorded: a failed record is retried without posting again
        await record({ type: 'MarkSeeded', data: { planId, now: now() } });
        trees.delete(planId);
      } catch (error) {
        if (await dropIfDamaged(error)) return;
        // A blob changed since this process computed the tree: which one is found by computing it
        // again, checking every blob. All intact again, the post is retried from that tree.
        if (error instanceof BundleChunkMismatch || error instanceof BundleBlobMismatch) {
          trees.delete(planId);
          try {
            await uploadOf(deps, bundle, trees);
          } catch (recheck) {
            if (await dropIfDamaged(recheck)) return;
            throw recheck;
          }
          throw error;
        }
        // The wallet could not pay (its balance moved, or the gateway prices otherwise): the items go
        // back to the queue with no attempt counted, and their next plan waits for funds.
        if (GatewayRejected.is(error) && error.about === 'funds') {
          deps.funds?.refused();
          return drop(`the service wallet cannot pay for it: ${error.message}`, false);
        }
        // refused for good (an anchor too old, a malformed transaction or chunk): its items go back to the queue
        if (GatewayRejected.is(error)) return drop(`gateway refused it: ${error.message}`);
        // Still failing when the anchor has expired and the network has not got the transaction (a
        // gateway that lost the header refuses its chunks with data_root_not_found forever): it can
        // never be mined, so retrying would keep the items out of every other bundle for good. A
        // header never taken (the gateway down, 5xx or 429 until then) is not about the bundle: no
        // attempt counted; one taken and then lost by the network is.
        if (GatewayRequestError.is(error) && !signal?.aborted) {
          const reason = await bestEffort(unseenPastAnchor(deps, bundle, signal), 'no reason found: the post is tried again');
          if (reason) return bundle.status === 'prepared' ? drop(`never taken by the gateway: ${reason}`, false) : drop(reason);
        }
        throw error;
      }
      return;
    case 'seeded':
    case 'confirmed': {
      const status = await deps.gateway.transactionStatus(bundle.txId, call);
      if (status.status === 'confirmed') {
        const { blockHeight, confirmations, blockHash } = status;
        // the block's hash goes in the event: a proof names the block without asking the gateway
        const seen = { planId, blockHeight, confirmations, ...(blockHash !== undefined ? { blockHash } : {}), now: now() };
        if (confirmations >= deps.settings.confirmations) {
          const block = await minedBlock(deps.gateway, status, call);
          await record({ type: 'MarkPermanent', data: { ...seen, ...(block ? { block } : {}) } });
        } else if (bundle.status === 'seeded') await record({ type: 'MarkConfirmed', data: seen });
        return;
      }
      const reason = await unseenPastAnchor(deps, bundle, signal, status);
      if (reason) await drop(reason);
      return;
    }
    case 'permanent':
    case 'dropped':
      return;
  }
}

/**
 * The block holding a bundle, for the GraphQL read model: asked of the gateway once, when the bundle
 * becomes permanent. A failure fails this pass (the next one asks again), so a permanent bundle names
 * its block whenever the gateway named one; none when the gateway answers no block hash.
 */
async function minedBlock(gateway: ArweaveGateway, status: { blockHash?: string }, call: GatewayCallOptions): Promise<MinedBlock | undefined> {
  if (status.blockHash === undefined || !gateway.block) return undefined;
  const { timestamp, previous } = await gateway.block(status.blockHash, call);
  return { id: status.blockHash, timestamp, previous };
}

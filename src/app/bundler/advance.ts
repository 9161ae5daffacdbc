import { bundleBytes, bundleLayout, chunkUploads, computeDataRoot, prepareBundle, type DataTree } from '../../bundling/index.js';
import type { Bundle } from '../../domain/bundle/state.js';
import type { TransactionHeader } from '../../ports/gateway.js';
import { GatewayRejected } from '../../ports/gatewayErrors.js';
import { BUNDLER, type BundlerDeps } from './deps.js';

/** Data trees of bundles prepared by this process; after a restart the tree is computed again. */
export type TreeCache = Map<string, DataTree>;

const layoutOf = (bundle: Bundle) => bundleLayout(bundle.items.map(({ id, size }) => ({ id, size, blobKey: `items/${id}` })));

async function treeOf(deps: BundlerDeps, bundle: Bundle, trees: TreeCache): Promise<DataTree> {
  const known = trees.get(bundle.planId);
  if (known) return known;
  const tree = await computeDataRoot(bundleBytes(deps.blobStore, layoutOf(bundle).items));
  if (Buffer.from(tree.dataRoot).toString('base64url') !== bundle.dataRoot) {
    throw new Error(`bundle ${bundle.planId}: its blobs no longer give the data root it was signed with`);
  }
  trees.set(bundle.planId, tree);
  return tree;
}

/**
 * Takes one live bundle one step forward and records the step: prepare (data root, signed
 * transaction), post the header, upload the chunks, then follow confirmations until permanent, or
 * drop it when the network has not taken it 50 blocks after its anchor. Each step repeated after a
 * crash is harmless: the same signed transaction is posted again, chunks are idempotent.
 */
export async function advanceBundle(deps: BundlerDeps, bundle: Bundle, trees: TreeCache): Promise<void> {
  const now = () => (deps.now ?? Date.now)();
  const { planId } = bundle;
  const record = async (command: Parameters<BundlerDeps['bundles']['execute']>[0]) => {
    const { position } = await deps.bundles.execute(command, BUNDLER);
    if (position !== undefined) await deps.awaitProjection?.(position);
  };

  switch (bundle.status) {
    case 'planned': {
      const [reward, anchor, anchorHeight] = await Promise.all([
        deps.gateway.price(bundle.totalSize),
        deps.gateway.anchor(),
        deps.gateway.currentHeight(),
      ]);
      const { tx, tree } = await prepareBundle({ blobStore: deps.blobStore, layout: layoutOf(bundle), jwk: deps.jwk, anchor, reward: reward.toString() });
      trees.set(planId, tree);
      await record({
        type: 'MarkPrepared',
        data: { planId, txId: tx.id, reward: tx.reward, anchor, anchorHeight, dataRoot: tx.data_root, dataSize: tree.dataSize, tx: { ...tx }, now: now() },
      });
      return;
    }
    case 'prepared':
    case 'posted':
      try {
        if (bundle.status === 'prepared') {
          await deps.gateway.postTransaction(bundle.tx as unknown as TransactionHeader);
          await record({ type: 'MarkPosted', data: { planId, now: now() } });
          return;
        }
        const tree = await treeOf(deps, bundle, trees);
        for await (const chunk of chunkUploads(deps.blobStore, layoutOf(bundle), tree)) await deps.gateway.postChunk(chunk);
        trees.delete(planId);
        await record({ type: 'MarkSeeded', data: { planId, now: now() } });
      } catch (error) {
        // refused for good (an unfunded wallet, an anchor too old): its items go back to the queue
        if (!(error instanceof GatewayRejected)) throw error;
        trees.delete(planId);
        await record({ type: 'Drop', data: { planId, reason: `gateway refused it: ${error.message}`, now: now() } });
      }
      return;
    case 'seeded':
    case 'confirmed': {
      const status = await deps.gateway.transactionStatus(bundle.txId!);
      if (status.status === 'confirmed') {
        const { blockHeight, confirmations } = status;
        if (confirmations >= deps.settings.confirmations) await record({ type: 'MarkPermanent', data: { planId, blockHeight, confirmations, now: now() } });
        else if (bundle.status === 'seeded') await record({ type: 'MarkConfirmed', data: { planId, blockHeight, confirmations, now: now() } });
        return;
      }
      const height = await deps.gateway.currentHeight();
      if (height > bundle.anchorHeight! + deps.settings.dropAfterBlocks) {
        await record({ type: 'Drop', data: { planId, reason: `not seen ${height - bundle.anchorHeight!} blocks after its anchor`, now: now() } });
      }
      return;
    }
    case 'permanent':
    case 'dropped':
      return;
  }
}

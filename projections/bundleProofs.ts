import type { ProjectionDefinition, HandledEvent } from './definition.js';

/**
 * What a proof (`GET /tx/:id/proof`) says of an item's root transaction beyond its chunks' paths:
 * the data root and size it was signed with, and the block it is in, once the gateway named it.
 * One small document per bundle plan, from its preparation until it is dropped.
 */
export interface BundleProofDocument {
  txId: string;
  /** base64url, as in the signed header */
  dataRoot: string;
  dataSize: number;
  /** the block the gateway last said holds the transaction, with its indep_hash */
  block?: { height: number; indepHash: string };
}

const handles = ['BundlePrepared', 'BundleConfirmed', 'BundlePermanent', 'BundleDropped'] as const;
type BundleProofEvent = HandledEvent<typeof handles>;

export const bundleProofsProjection: ProjectionDefinition<BundleProofDocument, BundleProofEvent> = {
  name: 'bundle-proofs',
  version: 1,
  handles,
  documentIds: (event) => [event.data.planId],
  reduce: (doc, event) => {
    switch (event.type) {
      case 'BundlePrepared': {
        const { txId, dataRoot, dataSize } = event.data;
        return { txId, dataRoot, dataSize };
      }
      case 'BundleConfirmed':
      case 'BundlePermanent': {
        const { blockHeight, blockHash } = event.data;
        // recorded before hashes were kept: the height alone names no block an auditor can check
        if (!doc || blockHash === undefined) return doc;
        return { ...doc, block: { height: blockHeight, indepHash: blockHash } };
      }
      // its items are back in the queue: no item names this plan any more
      case 'BundleDropped':
        return undefined;
    }
  },
};

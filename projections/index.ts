import type { AnyProjection } from './definition.js';
import { receiptsProjection } from './receipts.js';
import { txStatusProjection } from './txStatus.js';
import { accountBalanceProjection } from './accountBalance.js';
import { openReservationsProjection } from './openReservations.js';
import { uploadsProjection } from './uploads.js';
import { uploadChunksProjection } from './uploadChunks.js';
import { unfinishedUploadsProjection } from './unfinishedUploads.js';
import { bundleQueueProjection } from './bundleQueue.js';
import { liveBundlesProjection } from './liveBundles.js';
import { nestedOffsetsProjection } from './nestedOffsets.js';
import { pendingNestedIndexProjection } from './pendingNestedIndex.js';
import { itemHistoryProjection } from './itemHistory.js';
import { bundleHistoryProjection } from './bundleHistory.js';
import { uploadHistoryProjection } from './uploadHistory.js';
import { uploadStatsProjection } from './uploadStats.js';
import { receivedApprovalsProjection } from './receivedApprovals.js';
import { pendingTopUpsProjection } from './pendingTopUps.js';
import { bundleProofsProjection } from './bundleProofs.js';
import { graphqlItemsProjection } from './graphqlItems.js';
import { unrefundedFailuresProjection } from './unrefundedFailures.js';
import { accountEntriesProjection } from './accountEntries.js';
import { pendingX402PaymentsProjection } from './pendingX402Payments.js';
import { retentionDueProjection, retentionStatsProjection, retiredBytesProjection } from './retention.js';
import { quarantineStatsProjection } from './quarantineStats.js';

export const allProjections: readonly AnyProjection[] = [
  txStatusProjection,
  receiptsProjection,
  accountBalanceProjection,
  openReservationsProjection,
  uploadsProjection,
  uploadChunksProjection,
  unfinishedUploadsProjection,
  bundleQueueProjection,
  liveBundlesProjection,
  nestedOffsetsProjection,
  pendingNestedIndexProjection,
  itemHistoryProjection,
  bundleHistoryProjection,
  uploadHistoryProjection,
  uploadStatsProjection,
  receivedApprovalsProjection,
  pendingTopUpsProjection,
  bundleProofsProjection,
  graphqlItemsProjection,
  unrefundedFailuresProjection,
  accountEntriesProjection,
  pendingX402PaymentsProjection,
  retentionDueProjection,
  retiredBytesProjection,
  retentionStatsProjection,
  quarantineStatsProjection,
];
/**
 * The projections a service runs (and waits for, and counts in its lag): all of them, but the GraphQL
 * read model where the GraphQL API is off (GRAPHQL_ENABLED).
 */
export const projectionsOf = (options: { graphql: boolean }): readonly AnyProjection[] =>
  options.graphql ? allProjections : allProjections.filter((p) => p !== graphqlItemsProjection);

export { collectionOf, checkpointOf, type AnyProjection, type ProjectionDefinition } from './definition.js';
export { txStatusProjection, type TxStatusDocument } from './txStatus.js';
export { receiptsProjection } from './receipts.js';
export { accountBalanceProjection } from './accountBalance.js';
export { openReservationsProjection, type OpenReservation } from './openReservations.js';
export { uploadsProjection, type UploadDocument } from './uploads.js';
export { chunksOfUpload, uploadChunkId, uploadChunksProjection, type UploadChunkDocument } from './uploadChunks.js';
export { unfinishedUploadsProjection, type UnfinishedUpload } from './unfinishedUploads.js';
export { bundleQueueProjection, waitingForBundle, type QueuedItem } from './bundleQueue.js';
export { liveBundlesByState, liveBundlesProjection, type LiveBundle } from './liveBundles.js';
export { nestedOffsetsProjection, type NestedOffsetsDocument } from './nestedOffsets.js';
export { pendingNestedIndexProjection, type PendingNestedIndex } from './pendingNestedIndex.js';
export { itemHistoryProjection, type ItemHistoryDocument, type HistoryEntry } from './itemHistory.js';
export { bundleHistoryProjection, type BundleHistoryDocument } from './bundleHistory.js';
export { uploadHistoryProjection, type UploadHistoryDocument } from './uploadHistory.js';
export { uploadStatsProjection, UPLOAD_STATS_ID, type RecentFailure, type UploadStatsDocument } from './uploadStats.js';
export { receivedApprovalsProjection, type ReceivedApprovalsDocument } from './receivedApprovals.js';
export { pendingTopUpsProjection, type PendingTopUp } from './pendingTopUps.js';
export { bundleProofsProjection, type BundleProofDocument } from './bundleProofs.js';
export { graphqlItemsProjection, itemKeys, type GraphqlItemDocument } from './graphqlItems.js';
export { unrefundedFailuresProjection, type UnrefundedFailure } from './unrefundedFailures.js';
export { accountEntriesProjection, accountEntriesStart, type AccountEntry } from './accountEntries.js';
export { pendingX402PaymentsProjection, type PendingX402Payment } from './pendingX402Payments.js';
export {
  retentionDueProjection,
  retiredBytesProjection,
  retentionStatsProjection,
  RETENTION_STATS_ID,
  type RetentionDue,
  type RetiredBytes,
  type RetentionStats,
} from './retention.js';
export { quarantineStatsProjection, heldItemsNow, QUARANTINE_STATS_ID, type QuarantineStats } from './quarantineStats.js';

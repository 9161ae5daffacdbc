import type { SerializedAccount } from '../domain/account/serialized.js';
import type { DataItemId } from '../domain/ids.js';
import type { TxStatusDocument } from '../../projections/txStatus.js';
import type { Receipt } from '../domain/receipt.js';
import type { UploadDocument } from '../../projections/uploads.js';
import type { ReceivedApproval } from './receivedApprovals.js';
import type { ItemDataQueries } from './itemData.js';
import type { TxProof } from './txProof.js';
import type { GraphqlQueries } from './graphql/index.js';
import type { AccountStatement } from './statement.js';

/** What the query side answers from: the read models, never the event store's streams (but the dashboard's lag). */

export interface ServiceInfo {
  version: string;
  gateway: string;
  addresses: Record<string, string>;
  freeUploadLimitBytes: number;
}

export interface QueryHandlers {
  info(): ServiceInfo;
  txStatus(id: DataItemId): Promise<TxStatusDocument | undefined>;
  /** the receipt as it was issued; none for an item nested in an uploaded bundle (it was never uploaded itself) */
  receipt(id: DataItemId): Promise<Receipt | undefined>;
  accountBalance(address: string): Promise<SerializedAccount | undefined>;
  /** undefined until the item's bundle is known, and for items older than the retention */
  txOffsets(id: DataItemId): Promise<TxOffsets | undefined>;
  /**
   * what an upload of a signed item of `bytes` bytes is charged now: the upload path's own pricing, free
   * limit included; `client`, the asker's key (clientKeyOf), whose look-ups at the gateway are bounded;
   * a size past MAX_DATA_ITEM_SIZE is InvalidRequest
   */
  price(bytes: number, client: string): Promise<bigint>;
  /** the winc a top-up of `amount` of `token` (its smallest unit) is credited; InvalidToken, FiatNotSupported (tokenPrice.ts) */
  wincForToken(token: string, amount: bigint): bigint;
  /** the approvals in force that other payers gave `address` */
  receivedApprovals(address: string): Promise<ReceivedApproval[]>;
  /** an item's bytes, read back from the blob store (`GET /:id`, `GET /tx/:id/data`, `GET /tx/:id`) */
  itemData: ItemDataQueries;
  /** undefined until the item's root transaction is known (and for bundles prepared before proofs were kept) */
  txProof(id: DataItemId): Promise<TxProof | undefined>;
  /** `GET`/`POST /graphql`: the gateway schema over every accepted item (docs/graphql.md); absent: not served */
  graphql?: GraphqlQueries;
  /** a page of the account's signed statement (InvalidRequest: a cursor not of this account) */
  accountStatement(address: string, page: { limit: number; cursor?: string }): Promise<AccountStatement>;
}

export interface TxOffsets {
  rootBundleId: string;
  startOffsetInRootBundle: number;
  rawContentLength: number;
  payloadContentType: string;
  payloadDataStart: number;
  payloadContentLength: number;
  parentDataItemId?: string;
  startOffsetInParentDataItemPayload?: number;
}

/** What the multi-part upload routes read (`GET /chunks/:token/:uploadId` and its status). */
export interface MultipartQueryHandlers {
  upload(uploadId: string): Promise<UploadDocument | undefined>;
  /** the upload's chunks, `[offset, length]` ascending by offset */
  chunks(uploadId: string): Promise<[number, number][]>;
}

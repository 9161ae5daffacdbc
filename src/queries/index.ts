import type { EventStore } from '../ports/eventStore.js';
import type { BlockHeightHealth } from '../ports/gateway.js';
import type { ReadStore } from '../ports/readStore.js';
import type { Pricing } from '../ports/pricing.js';
import type { LookupBudgets } from '../adapters/pricing/lookupBudget.js';
import { InvalidRequest } from '../domain/errors.js';
import type { BlobStore } from '../ports/blobStore.js';
import type { SerializedAccount } from '../domain/account/serialized.js';
import type { Receipt } from '../domain/receipt.js';
import type { FundsSnapshot } from '../app/bundler/funds.js';
import {
  accountBalanceProjection,
  chunksOfUpload,
  collectionOf,
  projectionsOf,
  receiptsProjection,
  txStatusProjection,
  uploadsProjection,
  type TxStatusDocument,
  type UploadDocument,
} from '../../projections/index.js';
import { createDashboardQueries, type DashboardQueries } from './dashboard.js';
import { createTxOffsetsQuery } from './txOffsets.js';
import { createReceivedApprovalsQuery } from './receivedApprovals.js';
import { createItemDataQueries } from './itemData.js';
import { withHolds } from './heldItems.js';
import { createRetiredReads } from './retiredBytes.js';
import type { TransactionDataSource } from '../ports/gateway.js';
import { createTxProofQuery } from './txProof.js';
import { createTokenPriceQuery, type TokenRate } from './tokenPrice.js';
import { createGraphqlQueries, type GraphqlLimits } from './graphql/index.js';
import { createStatementQuery } from './statement.js';
import type { RsaPrivateJwk } from '../wallet/rsaJwk.js';
import type { MultipartQueryHandlers, QueryHandlers, ServiceInfo } from './types.js';

export type { MultipartQueryHandlers, QueryHandlers, ServiceInfo, TxOffsets } from './types.js';
export type { ReceivedApproval } from './receivedApprovals.js';
export type { ProofChunk, TxProof } from './txProof.js';
export { STATEMENT_DEFAULT_LIMIT, STATEMENT_MAX_LIMIT, type AccountStatement } from './statement.js';

export interface QueryDeps {
  eventStore: Pick<EventStore, 'headPosition' | 'countEventsAfter'>;
  readStore: ReadStore;
  /** items' bytes, for reading them back */
  blobStore: Pick<BlobStore, 'read' | 'open'>;
  info: () => ServiceInfo;
  /** how long after its bundle is permanent an item's offsets are still answered */
  offsetsRetentionMs: number;
  /** the pricing the upload path charges with (so a quoted price is the price charged) */
  pricing: Pricing;
  /** sizes past this are no item's: not priced (MAX_DATA_ITEM_SIZE) */
  maxDataItemSize: number;
  /** each client's allowance of price look-ups at the gateway (none: unbounded) */
  priceLookups?: LookupBudgets;
  /** the block height source's snapshot (the dashboard's gateway card) */
  blockHeight?: () => BlockHeightHealth;
  /** the bundler's snapshot of the service wallet, where this process bundles */
  funds?: () => FundsSnapshot;
  /** the service's clock */
  now: () => number;
  /** winc per whole token of each token top-ups are taken in (topUpChains.ts `topUpRatesOf`); none: no token prices */
  tokenRates?: ReadonlyMap<string, TokenRate>;
  /** what one GraphQL request may ask (default: DEFAULT_GRAPHQL_LIMITS) */
  graphqlLimits?: Partial<GraphqlLimits>;
  /** false: no GraphQL API (GRAPHQL_ENABLED): its routes are not served, and its read model not built nor counted in the lag */
  graphql?: boolean;
  /** the service wallet, which signs account statements as it signs receipts */
  walletJwk: RsaPrivateJwk;
  /** free bytes of DATA_DIR's file system, for the dashboard's days of disk left */
  freeDiskBytes?: () => Promise<number>;
  /** where retired items' bytes are read (the gateway), and how many such reads at once (none: not read) */
  retiredBytes?: { source: TransactionDataSource; maxReads: number };
}

/**
 * The query side, in one place: every answer comes from the read models (the dashboard's lag also
 * asks the event store for its head). The HTTP routers only parse, call these and shape the answer.
 */
export function createQueries(deps: QueryDeps): { queries: QueryHandlers; multipartQueries: MultipartQueryHandlers; dashboard: DashboardQueries } {
  const { readStore } = deps;
  const doc = async <T>(projection: { name: string; version: number }, id: string) => (await readStore.get<T>(collectionOf(projection), id))?.doc;
  const txOffsets = createTxOffsetsQuery({ readStore, retentionMs: deps.offsetsRetentionMs, now: deps.now });
  const retired = deps.retiredBytes && createRetiredReads({ readStore, ...deps.retiredBytes });
  const itemData = createItemDataQueries({ readStore, blobStore: deps.blobStore, ...(retired ? { retired } : {}) });
  return {
    multipartQueries: { upload: (id) => doc<UploadDocument>(uploadsProjection, id), chunks: (id) => chunksOfUpload(readStore, id) },
    queries: {
      info: deps.info,
      txStatus: (id) => doc<TxStatusDocument>(txStatusProjection, id),
      receipt: (id) => doc<Receipt>(receiptsProjection, id),
      txOffsets,
      accountBalance: (address) => doc<SerializedAccount>(accountBalanceProjection, address),
      async price(bytes, client) {
        // an item cannot be that large: no price is asked for it, from the gateway or elsewhere
        if (bytes > deps.maxDataItemSize) throw new InvalidRequest(`bytes ${bytes} past MAX_DATA_ITEM_SIZE`);
        return deps.pricing.priceOf(bytes, deps.priceLookups?.of(client));
      },
      wincForToken: createTokenPriceQuery(deps.tokenRates ?? new Map()),
      receivedApprovals: createReceivedApprovalsQuery({ readStore, now: deps.now }),
      // the HTTP reads answer 451 for held items; GraphQL reads what it needs of the header itself
      itemData: withHolds(itemData, readStore),
      txProof: createTxProofQuery({ readStore, blobStore: deps.blobStore }),
      ...(deps.graphql === false
        ? {}
        : { graphql: createGraphqlQueries({ readStore, itemData, ...(deps.graphqlLimits ? { limits: deps.graphqlLimits } : {}) }) }),
      accountStatement: createStatementQuery({ readStore, jwk: deps.walletJwk, now: deps.now }),
    },
    dashboard: createDashboardQueries({
      eventStore: deps.eventStore,
      readStore,
      info: deps.info,
      offsets: txOffsets,
      now: deps.now,
      projections: projectionsOf({ graphql: deps.graphql !== false }),
      ...(deps.blockHeight ? { blockHeight: deps.blockHeight } : {}),
      ...(deps.funds ? { funds: deps.funds } : {}),
      ...(deps.freeDiskBytes ? { freeDiskBytes: deps.freeDiskBytes } : {}),
    }),
  };
}

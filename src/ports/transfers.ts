/**
 * Transfers port: what the service needs from a chain to credit a top-up (a user sent tokens to
 * the service's address and claims them with the transaction id). One adapter per chain: the
 * Arweave gateway, an Ethereum JSON-RPC endpoint. Every call is bounded in time; a chain that cannot
 * be read throws (a GatewayRequestError), which is not the same as a transaction it does not know.
 */
export interface TransferSource {
  /** the transaction as the chain knows it now; undefined when it knows no such transaction */
  transfer(txId: string, options?: { signal?: AbortSignal }): Promise<Transfer | undefined>;
}

export interface Transfer {
  txId: string;
  /** who sent it, as accounts are keyed (CONTRACT.md section 5) */
  sender: string;
  /** where it went, as accounts are keyed; undefined when it names no recipient (a contract creation) */
  target: string | undefined;
  /** in the chain's base unit (winston, wei) */
  quantity: bigint;
  /** the account the transaction itself asks to credit (turbo's `Turbo-Credit-Destination-Address` tag), already parsed */
  creditTo?: string;
  /** mined but failed (an Ethereum receipt with status 0): it moved nothing */
  failed: boolean;
  status: TransferStatus;
}

export type TransferStatus =
  /** not in a block yet */
  | { confirmed: false }
  /** in block `blockHeight`, with `confirmations` as the chain counts them */
  | { confirmed: true; blockHeight: number; confirmations: number };

/**
 * Names the clients give one chain: turbo-sdk sends `pol` and `matic` for Polygon (its `defaultTokenMap`,
 * ardriveapp/turbo-sdk packages/turbo-sdk/src/common/token/index.ts at 1be4559: both a `PolygonToken`), and
 * the reference's payment service keeps one address for both (turbo-payment-service src/routes/info.ts at
 * e8c570e: `MATIC_ADDRESS`). A top-up is keyed by the canonical name, so one transaction is one claim
 * whichever name it was claimed under.
 */
const TOKEN_ALIASES: Readonly<Record<string, string>> = { pol: 'matic' };

/** the canonical name of a top-up token (`pol` is `matic`); any other name as it is */
export const canonicalTopUpToken = (token: string): string => (Object.hasOwn(TOKEN_ALIASES, token) ? TOKEN_ALIASES[token]! : token);

/** every name a chain of this canonical token is claimed under, the canonical one first */
export const namesOfTopUpToken = (token: string): string[] => [token, ...Object.keys(TOKEN_ALIASES).filter((alias) => TOKEN_ALIASES[alias] === token)];

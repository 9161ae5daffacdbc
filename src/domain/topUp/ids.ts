import { streamName, type StreamName } from '../../ports/eventStore.js';
import { canonicalArweaveId, canonicalEthereumTxHash } from '../ids.js';

/** the canonical spelling of a transaction id, by the chain (the token) it is on */
const canonicalOn: Readonly<Record<string, (txId: string) => string | undefined>> = {
  arweave: canonicalArweaveId,
  ethereum: canonicalEthereumTxHash,
};

/**
 * A transaction id of `token`'s chain in its canonical spelling (CONTRACT.md section 10), or
 * undefined when it spells none (or the token is no chain the service takes top-ups on). A claim's
 * stream, its credit id and every check of them are keyed by this spelling only: one transfer
 * whatever the case or the spare bits of what a client sent.
 */
export function canonicalTransferId(token: string, txId: string): string | undefined {
  return Object.hasOwn(canonicalOn, token) ? canonicalOn[token]!(txId) : undefined;
}

/** One stream per claimed transaction, so a transaction is claimed once (created with "no stream"). */
export const topUpStream = (key: string): StreamName => streamName(`topUp-${key}`);

/**
 * the key of a transfer's stream and the id of its credit on the account: the chain and the
 * transaction id, canonical (an id that has no canonical spelling is kept as given: such a one is
 * never claimed, only found in events written otherwise)
 */
export const creditIdOfTransfer = (token: string, txId: string): string => `${token}:${canonicalTransferId(token, txId) ?? txId}`;

/**
 * A top-up credit id (`<token>:<txId>`) with its transaction id canonical; any other credit id (an
 * operator's) as it is.
 */
export function canonicalCreditId(creditId: string): string {
  const colon = creditId.indexOf(':');
  return colon < 0 ? creditId : creditIdOfTransfer(creditId.slice(0, colon), creditId.slice(colon + 1));
}

import { streamName, type StreamName } from '../../ports/eventStore.js';
import { canonicalTopUpToken } from '../../ports/transfers.js';
import { canonicalArweaveId, canonicalEthereumTxHash } from '../ids.js';

/**
 * A transaction id of `token`'s chain in its canonical spelling (CONTRACT.md section 10), or
 * undefined when it spells none. Top-ups are taken on Arweave and on EVM chains (ETH, and those of
 * TOPUP_EVM_CHAINS: any other token name): an EVM chain's ids are transaction hashes. A claim's
 * stream, its credit id and every check of them are keyed by this spelling only: one transfer
 * whatever the case or the spare bits of what a client sent.
 */
export function canonicalTransferId(token: string, txId: string): string | undefined {
  return token === 'arweave' ? canonicalArweaveId(txId) : canonicalEthereumTxHash(txId);
}

/** One stream per claimed transaction, so a transaction is claimed once (created with "no stream"). */
export const topUpStream = (key: string): StreamName => streamName(`topUp-${key}`);

/**
 * the key of a transfer's stream and the id of its credit on the account: the chain (its canonical
 * token: `pol` is `matic`) and the transaction id, canonical (an id that has no canonical spelling is
 * kept as given: such a one is never claimed, only found in events written otherwise). The chain is
 * part of it: a hash claimed on one chain says nothing of another, and each chain is read at its own
 * RPC endpoint, whose chain id is checked (topUpChains.ts).
 */
export const creditIdOfTransfer = (token: string, txId: string): string => `${canonicalTopUpToken(token)}:${canonicalTransferId(token, txId) ?? txId}`;

/**
 * A top-up credit id (`<token>:<txId>`) with its transaction id canonical; any other credit id (an
 * operator's) as it is.
 */
export function canonicalCreditId(creditId: string): string {
  const colon = creditId.indexOf(':');
  return colon < 0 ? creditId : creditIdOfTransfer(creditId.slice(0, colon), creditId.slice(colon + 1));
}

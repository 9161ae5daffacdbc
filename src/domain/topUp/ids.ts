import { streamName, type StreamName } from '../../ports/eventStore.js';

/** One stream per claimed transaction, so a transaction is claimed once (created with "no stream"). */
export const topUpStream = (key: string): StreamName => streamName(`topUp-${key}`);

/** the key of a transfer's stream and the id of its credit on the account: the chain and the transaction id */
export const creditIdOfTransfer = (token: string, txId: string): string => `${token}:${txId}`;

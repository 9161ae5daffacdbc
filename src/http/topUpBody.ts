import type { TopUpOutcome } from '../app/accounts/topUps.js';

/**
 * The answer to a top-up claim: the contract's `{ confirmed, winc }` for the Irys/Bundlr clients
 * (which only look at the status), and the transaction as turbo-sdk's `submitFundTransaction`
 * parses it (`creditedTransaction` or `pendingTransaction`, and a `message`).
 */
export function topUpAnswerBody({ claim, confirmed, blockHeight }: TopUpOutcome) {
  const transaction = {
    transactionId: claim.txId,
    tokenType: claim.token,
    transactionQuantity: claim.quantity,
    winstonCreditAmount: claim.winc,
    destinationAddress: claim.address,
    destinationAddressType: claim.token,
    transactionSenderAddress: claim.sender,
  };
  return confirmed
    ? {
        confirmed: true,
        winc: claim.winc,
        message: 'Transaction credited',
        creditedTransaction: { ...transaction, ...(blockHeight !== undefined ? { blockHeight } : {}) },
      }
    : { confirmed: false, winc: claim.winc, message: 'Transaction pending: credited once confirmed', pendingTransaction: transaction };
}

import { createWalletClient, http, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { preparePaymentHeader, signPaymentHeader } from 'x402/client';
import type { PaymentRequirements } from 'x402/types';
import { localViemChain } from '../support/testUsdc.js';

/** x402's chain id of `base-sepolia`: the local chain runs with it, so x402 (and x402-fetch) know the network by name */
export const BASE_SEPOLIA_CHAIN_ID = 84532;

export type PayerWallet = ReturnType<typeof payerWallet>;

/** a viem wallet (with public actions, as x402's signers are) for `privateKey` on the local chain */
export const payerWallet = (rpcUrl: string, privateKey: Hex) =>
  createWalletClient({ account: privateKeyToAccount(privateKey), chain: localViemChain(BASE_SEPOLIA_CHAIN_ID, rpcUrl), transport: http(rpcUrl) }).extend(
    publicActions,
  );

type Authorization = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };

/**
 * An `X-PAYMENT` header signed by x402's own client code (`preparePaymentHeader`, `signPaymentHeader`) for
 * `requirements`, with `change` applied to the authorization before it is signed (an expired one, a short
 * value, another recipient) and `network` to the payload after.
 */
export async function paymentHeader(
  wallet: PayerWallet,
  requirements: PaymentRequirements,
  change: (a: Authorization) => Partial<Authorization> = () => ({}),
  after: (payload: Record<string, unknown>) => Record<string, unknown> = (p) => p,
): Promise<string> {
  const unsigned = preparePaymentHeader(wallet.account.address, 1, requirements);
  const authorization = unsigned.payload.authorization as Authorization;
  Object.assign(authorization, change(authorization));
  const signed = JSON.parse(Buffer.from(await signPaymentHeader(wallet, requirements, unsigned), 'base64').toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(after(signed))).toString('base64');
}

export const decodeHeader = (header: string) =>
  JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { payload: { authorization: Authorization; signature: string } };

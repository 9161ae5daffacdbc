import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import { loadX402Packages, x402Packages } from '../../x402Packages.js';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from 'x402/types';

/** One x402 network the service takes USDC on (config X402_NETWORKS). */
export interface X402NetworkConfig {
  /** x402's name of the network (`base`, `base-sepolia`, ...): what clients sign for */
  network: string;
  chainId: number;
  rpcUrl: string;
  /** the USDC contract (EIP-3009) */
  usdc: Hex;
  /** the address payments go to */
  payTo: Hex;
  /** a facilitator that verifies and settles (x402's HTTP facilitator API); else `keyFile` */
  facilitatorUrl?: string;
  /** the service settles itself: a file holding the 0x private key of the account that pays the gas */
  keyFile?: string;
}

/** x402's verify and settle for one network, and a read of whether an authorization was used. */
export interface X402Settlement {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  /** EIP-3009 `authorizationState(from, nonce)` on the USDC contract: whether that authorization was used */
  authorizationUsed(from: Hex, nonce: Hex): Promise<boolean>;
  /** the timestamp (seconds) of the chain's latest block: an authorization unused when it is past `validBefore` never settles */
  chainTime(): Promise<number>;
}

const AUTHORIZATION_STATE_ABI = [
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

/** `step`, or a rejection once `ms` have passed (the step itself is left to end as it will) */
function withinTime<T>(step: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no settlement within ${ms} ms`)), ms);
  });
  return Promise.race([step, late]).finally(() => clearTimeout(timer));
}

/** the 0x key in a key file (whitespace around it ignored); never logged */
export function readKeyFile(path: string): Hex {
  const key = readFileSync(path, 'utf8').trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`the x402 key file ${path} holds no 0x private key of 64 hex digits`);
  return key as Hex;
}

/** the chain of one network as viem reads it, and what the service and the audit read of its USDC contract */
function chainOf(config: Pick<X402NetworkConfig, 'network' | 'chainId' | 'rpcUrl' | 'usdc'>, timeoutMs: number) {
  const { defineChain, http, createPublicClient } = x402Packages().viem;
  const chain = defineChain({
    id: config.chainId,
    name: config.network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const transport = http(config.rpcUrl, { timeout: timeoutMs, retryCount: 0 });
  const reader = createPublicClient({ chain, transport });
  const authorizationUsed = (from: Hex, nonce: Hex) =>
    reader.readContract({ address: config.usdc, abi: AUTHORIZATION_STATE_ABI, functionName: 'authorizationState', args: [from, nonce] });
  const chainTime = async () => Number((await reader.getBlock({ blockTag: 'latest' })).timestamp);
  return { chain, transport, reader, authorizationUsed, chainTime };
}

/** what the audit reads of a network (no key): whether an authorization was used, and the chain's time */
export async function createX402ChainReader(config: Pick<X402NetworkConfig, 'network' | 'chainId' | 'rpcUrl' | 'usdc'>, timeoutMs: number) {
  await loadX402Packages();
  const { authorizationUsed, chainTime } = chainOf(config, timeoutMs);
  return { authorizationUsed, chainTime };
}

/**
 * Built with x402's own facilitator functions: with a key, `verify` and `settle` from `x402/facilitator`
 * on viem clients of the configured RPC (the service submits `transferWithAuthorization` and pays the
 * gas); with a facilitator URL, `useFacilitator`'s HTTP calls. `timeoutMs` bounds each RPC request.
 * The packages are loaded first (`loadX402Packages`, src/x402Packages.ts).
 */
export function createX402Settlement(config: X402NetworkConfig, timeoutMs: number): X402Settlement {
  const { chain, transport, reader, authorizationUsed, chainTime } = chainOf(config, timeoutMs);
  const { viem, viemAccounts, facilitator: local, verify: remote } = x402Packages();
  if (config.facilitatorUrl) {
    const facilitator = remote.useFacilitator({ url: config.facilitatorUrl as `${string}://${string}` });
    return { verify: facilitator.verify, settle: facilitator.settle, authorizationUsed, chainTime };
  }
  if (!config.keyFile) throw new Error(`x402 network ${config.network} needs a facilitatorUrl or a keyFile`);
  // a settlement that is not mined within this ends unknown (the caller asks the chain), and frees the turn;
  // the reference gives up after 3 minutes (turbo-upload-service src/arch/x402.ts `settlementTimeoutMs`)
  const settleTimeoutMs = timeoutMs * 6;
  // polled for the settlement's receipt every half second (viem's default for HTTP is 4 s)
  const wallet = viem
    .createWalletClient({ account: viemAccounts.privateKeyToAccount(readKeyFile(config.keyFile)), chain, transport, pollingInterval: 500 })
    .extend(viem.publicActions);
  // One settlement at a time per key: each is a transaction from the key's account, and two sent at once
  // would be given the same account nonce (read from the node), one replacing or refusing the other.
  let last: Promise<unknown> = Promise.resolve();
  const settleInTurn = (payload: PaymentPayload, requirements: PaymentRequirements) => {
    const turn = last.then(() => withinTime(local.settle(wallet, payload, requirements), settleTimeoutMs));
    // handled: the next turn only waits for this one to end; its failure reaches this caller through `turn`
    last = turn.catch(() => undefined);
    return turn;
  };
  return {
    verify: (payload, requirements) => local.verify(reader, payload, requirements),
    settle: settleInTurn,
    authorizationUsed,
    chainTime,
  };
}

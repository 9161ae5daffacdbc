import type { Config } from '../../config.js';
import { createArweaveTransfers } from '../../adapters/gateway/arweaveTransfers.js';
import { createEthereumTransfers, WrongChain } from '../../adapters/ethereum/rpcTransfers.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import { namesOfTopUpToken } from '../../ports/transfers.js';
import { toChecksumAddress } from '../../verify/index.js';
import type { TopUpChain } from './topUps.js';

const WINSTON_PER_AR = 10n ** 12n;
/** 10^18 base units (wei) in a whole native token, on every EVM chain the clients name (ETH, Base's ETH, POL) */
const WEI_PER_TOKEN = 10n ** 18n;

type ChainsConfig = Pick<Config, 'topUps' | 'gatewayUrl' | 'gatewayTimeoutMs'>;

/**
 * The chains top-ups are taken in, by canonical token name: arweave (to the service wallet, read from
 * the gateway) unless its rate is 0, and each EVM chain (ETHEREUM_RPC_URL as `ethereum`, and those of
 * TOPUP_EVM_CHAINS), read through its RPC endpoint with the same code. The service never needs a key
 * for them: it only reads what was sent.
 */
export function createTopUpChains(config: ChainsConfig, walletAddress: string, fetchFn: typeof fetch = fetch): Map<string, TopUpChain> {
  const chains = new Map<string, TopUpChain>();
  const { arweave, evm } = config.topUps;
  if (arweave.wincPerToken > 0n) {
    chains.set('arweave', {
      source: createArweaveTransfers({ gatewayUrl: config.gatewayUrl, timeoutMs: config.gatewayTimeoutMs, fetch: fetchFn }),
      address: walletAddress,
      minConfirmations: arweave.minConfirmations,
      wincPerToken: arweave.wincPerToken,
      unitsPerToken: WINSTON_PER_AR,
    });
  }
  for (const chain of evm) {
    const source = createEthereumTransfers({
      rpcUrl: chain.rpcUrl,
      ...(chain.chainId !== undefined ? { chainId: chain.chainId } : {}),
      timeoutMs: config.gatewayTimeoutMs,
      fetch: fetchFn,
    });
    chains.set(chain.token, {
      source,
      checkChain: () => source.checkChain(),
      address: toChecksumAddress(chain.address),
      minConfirmations: chain.minConfirmations,
      wincPerToken: chain.wincPerToken,
      unitsPerToken: WEI_PER_TOKEN,
    });
  }
  return chains;
}

/**
 * At start: each EVM chain's endpoint is asked its chain id. Another chain than configured is thrown
 * (WrongChain: the start stops, as for any bad configuration); an endpoint that cannot be read now is
 * logged and asked again before its first transaction is read (rpcTransfers.ts), so a provider that is
 * down does not keep the service from starting.
 */
export async function checkTopUpChains(
  chains: ReadonlyMap<string, TopUpChain>,
  log: (message: string, fields: Record<string, unknown>) => void,
): Promise<void> {
  await Promise.all(
    [...chains].map(async ([token, chain]) => {
      if (!chain.checkChain) return;
      try {
        await chain.checkChain();
      } catch (error) {
        if (error instanceof WrongChain || !GatewayRequestError.is(error)) throw error;
        log('top-up chain not checked at start: its RPC endpoint could not be read; checked again before its first claim', { token, error: error.message });
      }
    }),
  );
}

/**
 * What one whole token of each chain top-ups are taken in is credited, by every name the clients
 * give it (`pol` and `matic`): the rates `GET /v1/price/:token/:amount` quotes with (the same
 * chains, the same arithmetic: topUps.ts `wincOf`).
 */
export function topUpRatesOf(config: Pick<Config, 'topUps'>): ReadonlyMap<string, Pick<TopUpChain, 'wincPerToken' | 'unitsPerToken'>> {
  const rates = new Map<string, Pick<TopUpChain, 'wincPerToken' | 'unitsPerToken'>>();
  const { arweave, evm } = config.topUps;
  if (arweave.wincPerToken > 0n) rates.set('arweave', { wincPerToken: arweave.wincPerToken, unitsPerToken: WINSTON_PER_AR });
  for (const chain of evm) {
    for (const name of namesOfTopUpToken(chain.token)) rates.set(name, { wincPerToken: chain.wincPerToken, unitsPerToken: WEI_PER_TOKEN });
  }
  return rates;
}

/**
 * The addresses top-ups are sent to on the EVM chains, by every name of their tokens (`/info` lists
 * them: turbo-sdk's `topUpWithTokens` sends to the address `/info` names for its token), checksummed.
 */
export function topUpAddressesOf(config: Pick<Config, 'topUps'>): ReadonlyMap<string, string> {
  return new Map(config.topUps.evm.flatMap((chain) => namesOfTopUpToken(chain.token).map((name) => [name, toChecksumAddress(chain.address)] as const)));
}

/** the chains the configuration reads, by token, for the audit (which re-reads every top-up credit) */
export const transferSourcesOf = (config: ChainsConfig, fetchFn: typeof fetch = fetch) =>
  new Map([...createTopUpChains(config, '', fetchFn)].map(([token, chain]) => [token, chain.source]));

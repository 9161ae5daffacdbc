import type { Config } from '../../config.js';
import { createArweaveTransfers } from '../../adapters/gateway/arweaveTransfers.js';
import { createEthereumTransfers } from '../../adapters/ethereum/rpcTransfers.js';
import { toChecksumAddress } from '../../verify/index.js';
import type { TopUpChain } from './topUps.js';

const WINSTON_PER_AR = 10n ** 12n;
const WEI_PER_ETH = 10n ** 18n;

/**
 * The chains top-ups are taken in, by token name: arweave (to the service wallet, read from the
 * gateway) unless its rate is 0, and ethereum (to ADDRESS_ETHEREUM, read through ETHEREUM_RPC_URL)
 * when configured. The service never needs a key for them: it only reads what was sent.
 */
export function createTopUpChains(config: Pick<Config, 'topUps' | 'gatewayUrl' | 'gatewayTimeoutMs'>, walletAddress: string, fetchFn: typeof fetch = fetch) {
  const chains = new Map<string, TopUpChain>();
  const { arweave, ethereum } = config.topUps;
  if (arweave.wincPerToken > 0n) {
    chains.set('arweave', {
      source: createArweaveTransfers({ gatewayUrl: config.gatewayUrl, timeoutMs: config.gatewayTimeoutMs, fetch: fetchFn }),
      address: walletAddress,
      minConfirmations: arweave.minConfirmations,
      wincPerToken: arweave.wincPerToken,
      unitsPerToken: WINSTON_PER_AR,
    });
  }
  if (ethereum && ethereum.wincPerToken > 0n) {
    chains.set('ethereum', {
      source: createEthereumTransfers({ rpcUrl: ethereum.rpcUrl, timeoutMs: config.gatewayTimeoutMs, fetch: fetchFn }),
      address: toChecksumAddress(ethereum.address),
      minConfirmations: ethereum.minConfirmations,
      wincPerToken: ethereum.wincPerToken,
      unitsPerToken: WEI_PER_ETH,
    });
  }
  return chains;
}

/**
 * What one whole token of each chain top-ups are taken in is credited, by token name: the rates
 * `GET /v1/price/:token/:amount` quotes with (the same chains, the same arithmetic: topUps.ts `wincOf`).
 */
export function topUpRatesOf(config: Pick<Config, 'topUps'>): ReadonlyMap<string, Pick<TopUpChain, 'wincPerToken' | 'unitsPerToken'>> {
  const rates = new Map<string, Pick<TopUpChain, 'wincPerToken' | 'unitsPerToken'>>();
  const { arweave, ethereum } = config.topUps;
  if (arweave.wincPerToken > 0n) rates.set('arweave', { wincPerToken: arweave.wincPerToken, unitsPerToken: WINSTON_PER_AR });
  if (ethereum && ethereum.wincPerToken > 0n) rates.set('ethereum', { wincPerToken: ethereum.wincPerToken, unitsPerToken: WEI_PER_ETH });
  return rates;
}

/** the chains the configuration reads, by token, for the audit (which re-reads every top-up credit) */
export const transferSourcesOf = (config: Pick<Config, 'topUps' | 'gatewayUrl' | 'gatewayTimeoutMs'>, fetchFn: typeof fetch = fetch) =>
  new Map([...createTopUpChains(config, '', fetchFn)].map(([token, chain]) => [token, chain.source]));

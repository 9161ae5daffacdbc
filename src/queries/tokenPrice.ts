import { FiatNotSupported, InvalidToken } from '../domain/errors.js';
import { wincOf, type TopUpChain } from '../app/accounts/topUps.js';

export type TokenRate = Pick<TopUpChain, 'wincPerToken' | 'unitsPerToken'>;

/**
 * The fiat currencies the reference's payment service prices in (ardriveapp/turbo-payment-service
 * src/types/supportedCurrencies.ts at e8c570e, `supportedFiatPaymentCurrencyTypes`): asked for one, this
 * service says it has no fiat, rather than read the name as a token.
 */
const FIAT = new Set(['aud', 'brl', 'cad', 'eur', 'gbp', 'hkd', 'inr', 'jpy', 'sgd', 'usd']);

/**
 * What a top-up of `amount` (the token's smallest unit) is credited: the top-ups' own rate and
 * arithmetic (topUps.ts `wincOf`: exact, rounded down). A token without top-ups is InvalidToken, a fiat
 * currency FiatNotSupported.
 */
export function createTokenPriceQuery(rates: ReadonlyMap<string, TokenRate>) {
  return (token: string, amount: bigint): bigint => {
    const rate = rates.get(token);
    if (rate) return wincOf(rate, amount);
    if (FIAT.has(token)) throw new FiatNotSupported(`a price in ${token}`);
    throw new InvalidToken(`no top-ups in ${token}`);
  };
}

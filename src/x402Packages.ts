import type * as Viem from 'viem';
import type * as ViemAccounts from 'viem/accounts';
import type * as X402Types from 'x402/types';
import type * as X402Facilitator from 'x402/facilitator';
import type * as X402Verify from 'x402/verify';

/**
 * The x402 package and viem, loaded only where x402 is configured (X402_NETWORKS): `x402/types` alone
 * brings in about 80 MiB (viem and its chains), which a service without x402 would hold for nothing.
 * Only these packages are loaded late, never this project's own modules: under the test runner (mocha
 * with tsx) a dynamic import of one of ours gives it a second instance beside the statically loaded one
 * (its error classes then fail `instanceof` in the HTTP layer). Whoever builds the x402 side awaits
 * `loadX402Packages()` first (src/wiring/x402.ts, scripts/audit.ts, tests that build them); the functions that use them then
 * read `x402Packages()` synchronously.
 */
export interface X402Packages {
  viem: typeof Viem;
  viemAccounts: typeof ViemAccounts;
  types: typeof X402Types;
  facilitator: typeof X402Facilitator;
  verify: typeof X402Verify;
}

let loaded: X402Packages | undefined;

export async function loadX402Packages(): Promise<X402Packages> {
  loaded ??= {
    viem: await import('viem'),
    viemAccounts: await import('viem/accounts'),
    types: await import('x402/types'),
    facilitator: await import('x402/facilitator'),
    verify: await import('x402/verify'),
  };
  return loaded;
}

/** the packages `loadX402Packages()` loaded; throws before it */
export function x402Packages(): X402Packages {
  if (!loaded) throw new Error('the x402 packages are not loaded: await loadX402Packages() first');
  return loaded;
}

/** USDC has 6 decimals: one USDC is 10^6 atomic units, the unit x402 amounts are in. */
export const USDC_UNITS = 1_000_000n;

/**
 * The USDC (atomic units) a price of `winc` costs at `wincPerUsdc` winc per whole USDC: exact bigint
 * arithmetic, rounded up, so that what is paid always covers the price (rounding never favours the payer:
 * the credit the payment buys is the price itself, never more than the USDC paid is worth).
 */
export function usdcForWinc(winc: bigint, wincPerUsdc: bigint): bigint {
  if (wincPerUsdc <= 0n) throw new RangeError('the winc per USDC rate must be positive');
  if (winc <= 0n) return 0n;
  return (winc * USDC_UNITS + wincPerUsdc - 1n) / wincPerUsdc;
}

/**
 * The winc `usdc` atomic units are worth, rounded down (as top-ups are: src/app/accounts/topUps.ts `wincOf`):
 * what a settled payment credits. For a payment of `usdcForWinc(P)` this is at least P; the few winc of
 * rounding above the price stay on the payer's account, as does whatever an authorization paid beyond it.
 */
export function wincForUsdc(usdc: bigint, wincPerUsdc: bigint): bigint {
  return (usdc * wincPerUsdc) / USDC_UNITS;
}

/**
 * How long an authorization for an upload of `bytes` stays usable, as the reference sets it
 * (ardriveapp/turbo-upload-service src/arch/x402.ts `calculateRequirements`): 5 minutes, 30 over 10 MiB,
 * 60 over 100 MiB.
 */
export function maxTimeoutSecondsFor(bytes: number): number {
  if (bytes > 100 * 1024 * 1024) return 60 * 60;
  if (bytes > 10 * 1024 * 1024) return 30 * 60;
  return 5 * 60;
}

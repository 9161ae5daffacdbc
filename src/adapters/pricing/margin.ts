import { ceilDiv } from './bytes.js';

/**
 * The service's margin over the network price, in basis points so that fractional percentages
 * (12.5 %) stay in integer arithmetic. Rounded through 6 decimals first: 1.005 × 100 is
 * 100.49999999999999 in floating point and must give 101, not 100.
 */
export function marginBasisPoints(marginPercent: number): bigint {
  // Down to -100 %: a negative margin is a subsidy, below that a price would be negative.
  if (!Number.isFinite(marginPercent) || marginPercent < -100) throw new RangeError(`not a margin: ${marginPercent}`);
  return BigInt(Math.round(Number((marginPercent * 100).toFixed(6))));
}

/** Rounded up: the margin never leaves the service a fraction of a winc short of the network price. */
export const withMargin = (winston: bigint, basisPoints: bigint): bigint => ceilDiv(winston * (10_000n + basisPoints), 10_000n);

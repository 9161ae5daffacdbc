/**
 * Ed25519 public keys of small order: the 8 torsion points, in any encoding (the sign bit, and y
 * past p). With such a key A, [8]A is the identity, so the cofactored check that noble (and so
 * arbundles) runs, [8]sB = [8]R + [8]kA, holds for R the identity and s = 0 whatever the message:
 * anyone can "sign" any content as that owner, and every such item has the same signature, hence
 * the same id. No key made from a secret is one of them, so refusing them refuses no real signer.
 *
 * The small-order points are exactly those whose y is 0, 1, p - 1, or ±y8 (the order-8 points).
 */

const P = 2n ** 255n - 19n;
const Y8 = 0x05fc536d880238b13933c6d305acdfd5f098eff289f4c345b027b2c28f95e826n;
const SMALL_ORDER_Y: ReadonlySet<bigint> = new Set([0n, 1n, P - 1n, Y8, P - Y8]);
const Y_MASK = (1n << 255n) - 1n;

/** whether 32 bytes encode a small-order point (checked on y alone, whatever the x sign bit says) */
export function isSmallOrderEd25519Key(key: Uint8Array): boolean {
  if (key.length !== 32) return false;
  const y = BigInt(`0x${Buffer.from(key).reverse().toString('hex')}`) & Y_MASK;
  return SMALL_ORDER_Y.has(y % P);
}

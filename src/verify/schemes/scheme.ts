/**
 * What the verifier needs to know about one ANS-104 signature type. Lengths come from arbundles'
 * SIG_CONFIG; the checks are split so that anything decidable from the header bytes alone fails
 * while the item is still streaming, and only the cryptography waits for the payload.
 */
export interface SignatureScheme {
  readonly signatureType: number;
  readonly signatureLength: number;
  readonly ownerLength: number;
  /** structural problems with the signature or owner bytes, or undefined when they look right */
  checkHeader(signature: Buffer, owner: Buffer): string | undefined;
  /** whether `signature` by `owner` covers `message` (the item's deep hash); never throws */
  verify(owner: Buffer, message: Buffer, signature: Buffer): Promise<boolean>;
  /** the payer's account key (CONTRACT.md section 5) */
  nativeAddress(owner: Buffer): string;
}

/** Runs a library verification, reading a throw (malformed key or signature) as "does not verify". */
export async function settles(verification: () => Promise<boolean> | boolean): Promise<boolean> {
  try {
    return (await verification()) === true;
  } catch {
    return false;
  }
}

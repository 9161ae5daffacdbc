import type { BlobDigest } from '../crypto/deepHash.js';

export interface Tag {
  name: string;
  value: string;
}

export interface VerifiedDataItem {
  /** base64url(sha256(raw signature bytes)) */
  id: string;
  /** 1..7, as arbundles numbers them */
  signatureType: number;
  /** base64url of the raw signature */
  signature: string;
  /** base64url of the raw owner bytes */
  ownerPublicKey: string;
  /** base64url(sha256(owner bytes)): the receipt's `owner`, for every signature type */
  owner: string;
  /** the payer's account key, CONTRACT.md section 5 */
  nativeAddress: string;
  /** base64url, when present */
  target?: string;
  /** base64url, when present */
  anchor?: string;
  tags: Tag[];
  /** first tag named `content-type` in any case, else application/octet-stream */
  contentType: string;
  /** total bytes of the item */
  rawContentLength: number;
  /** 2 + sigLen + ownerLen + (33 or 1) + (33 or 1) + 16 + tag bytes */
  payloadDataStart: number;
  payloadContentLength: number;
  /**
   * hex SHA-384 of the payload's bytes: the digest the deep hash takes of the data, so known with no
   * extra hashing; what a quarantine rule's `payloadSha384` matches (`sha384sum` of the payload file)
   */
  payloadSha384: string;
}

export type VerifiedHeader = Omit<VerifiedDataItem, 'rawContentLength' | 'payloadContentLength' | 'payloadSha384'>;

export interface DataItemVerifier {
  /** feed the next bytes; synchronous; throws InvalidDataItem as soon as the header is known bad, DataItemTooLarge past maxSize */
  write(chunk: Uint8Array): void;
  /** the id, as soon as the signature bytes have arrived (undefined before) */
  readonly id: string | undefined;
  /** header fields once the whole header has arrived (undefined before) */
  readonly header: VerifiedHeader | undefined;
  /** no more bytes: finish the deep hash, verify the signature; rejects with InvalidDataItem */
  end(): Promise<VerifiedDataItem>;
  /**
   * For a caller that hashes the payload elsewhere (on a worker): feeds header bytes only, and
   * returns how many bytes of `chunk` it took (all of them until the header is complete, then those up
   * to its end, then none); the rest is payload. Throws as `write` does.
   */
  writeHeader(chunk: Uint8Array): number;
  /** `end`, for the payload after the header given as its SHA-384 and length instead of its bytes */
  endWithPayload(payload: BlobDigest): Promise<VerifiedDataItem>;
}

export interface VerifierOptions {
  /** largest accepted item in bytes, header included */
  maxSize: number;
  /** the ANS-104 text's tag limits (non-empty names and values, at most 128 tags) on top of arbundles' (tags.ts) */
  strictTags?: boolean;
}

import { createHash } from 'node:crypto';
import { InvalidDataItem } from '../../domain/errors.js';
import { HeaderParser } from '../../verify/headerParser.js';
import type { Tag } from '../../verify/index.js';

/** What finding a nested item needs of its header: no owner address, no deep hash. */
export interface ItemHead {
  /** base64url(sha256(signature)) */
  id: string;
  payloadDataStart: number;
  /** first tag named `content-type` in any case, else application/octet-stream (as the verifier says) */
  contentType: string;
  tags: Tag[];
  /** what names its signer (ownerAddresses), only for a walk that checks the block list */
  signatureType: number;
  owner: Buffer;
  signature: Buffer;
  /** base64url, when present */
  target?: string;
  anchor?: string;
}

/**
 * The header at the start of `firstBytes`, or undefined when they are too few or not a valid
 * ANS-104 header. Parsing only: whether the signature covers the item is checked apart
 * (verifyEntry.ts), and only for entries whose id is the one their bundle lists.
 */
export function itemHead(firstBytes: Uint8Array): ItemHead | undefined {
  const parser = new HeaderParser();
  try {
    parser.push(firstBytes);
  } catch (error) {
    if (error instanceof InvalidDataItem) return undefined;
    throw error;
  }
  const header = parser.header;
  if (!header) return undefined;
  return {
    id: createHash('sha256').update(header.signature).digest('base64url'),
    payloadDataStart: header.dataStart,
    contentType: header.tags.find((tag) => tag.name.toLowerCase() === 'content-type')?.value ?? 'application/octet-stream',
    tags: header.tags,
    signatureType: header.scheme.signatureType,
    owner: header.owner,
    signature: header.signature,
    ...(header.target ? { target: header.target.toString('base64url') } : {}),
    ...(header.anchor ? { anchor: header.anchor.toString('base64url') } : {}),
  };
}

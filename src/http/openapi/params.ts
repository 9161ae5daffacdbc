import { z } from 'zod';
import { InvalidAddress, InvalidChunk, InvalidRequest, InvalidToken, TxNotFound, UploadNotFound } from '../../domain/errors.js';
import { DataItemId, Token } from '../../domain/ids.js';
import { UploadId } from '../../domain/upload/ids.js';
import { ADDRESS, parseAccountAddress } from '../../domain/account/ids.js';
import { parseBlockTarget } from '../../domain/blocklist/target.js';
import type { NamedValue, PathParam } from './route.js';

/** Path parameters shared by the routes, each with the contract's error for a segment of another shape. */

export const tokenParam: PathParam<typeof Token> = {
  schema: Token.meta({ id: 'Token', description: 'token name: `arweave`, `ethereum`, `solana`, `matic`, or any other client token name' }),
  description: 'the payment token the client names (CONTRACT.md section 3); another shape is `Invalid token`',
  invalid: (raw) => new InvalidToken(raw),
};

export const dataItemIdParam: PathParam<typeof DataItemId> = {
  schema: DataItemId.meta({ id: 'DataItemId', description: 'base64url(sha256(signature)) of a data item: 43 characters' }),
  description: "the data item id; another shape is `TX doesn't exist`",
  invalid: (raw) => new TxNotFound(raw),
};

export const uploadIdParam: PathParam<typeof UploadId> = {
  schema: UploadId.meta({ id: 'UploadId', description: 'a multi-part upload id, as created (base64url, 22 to 64 characters)' }),
  description: 'the multi-part upload id; another shape is `Multi-part upload not found` (so `-1` never reads as an id)',
  invalid: (raw) => new UploadNotFound(raw),
};

/** the same check as the chunk handler's: a decimal offset of at most 16 digits */
export const ChunkOffset = z
  .string()
  .regex(/^\d{1,16}$/)
  .meta({ description: 'byte offset of the chunk in the signed item' });
export const chunkOffsetParam: PathParam<typeof ChunkOffset> = {
  schema: ChunkOffset,
  description: 'where the chunk starts in the signed data item; another shape is `Invalid chunk`',
  invalid: (raw) => new InvalidChunk(`offset ${raw}`),
};

/** A native address (CONTRACT.md section 5); parses to the account key (an ethereum address in EIP-55 form). */
export const AccountAddress = z
  .string()
  .transform((s, ctx) => parseAccountAddress(s) ?? (ctx.addIssue({ code: 'custom', message: 'not an account address' }), z.NEVER))
  .meta({
    id: 'AccountAddress',
    description: 'base64url (43 characters, arweave), 0x + 40 hex digits (ethereum, any case), or base58 (solana, ed25519)',
    pattern: ADDRESS.source,
  });

export const addressParam = (description: string): PathParam<typeof AccountAddress> => ({
  schema: AccountAddress,
  description: `${description}; another shape is \`Invalid address\``,
  invalid: (raw) => new InvalidAddress(raw),
});

/** What the block routes take: an address, or an owner's public key brought to its address (parseBlockTarget). */
export const BlockTarget = z
  .string()
  .transform((s, ctx) => parseBlockTarget(s) ?? (ctx.addIssue({ code: 'custom', message: 'not an address or an owner key' }), z.NEVER))
  .meta({
    id: 'BlockTarget',
    description:
      'an address (as AccountAddress), or an owner public key as `GET /tx/:id` answers `owner` (base64url of the owner bytes): ' +
      'an RSA modulus, a secp256k1 key, a multi-aptos owner or a typed-ethereum owner stands for its address; an ed25519 key is an address already',
  });

export const blockTargetParam = (description: string): PathParam<typeof BlockTarget> => ({
  schema: BlockTarget,
  description: `${description}; another shape is \`Invalid address\``,
  invalid: (raw) => new InvalidAddress(raw),
});

export const paidByHeader: NamedValue = {
  schema: z.string(),
  description: 'comma-separated payer addresses tried first, in order (each must have approved the owner); anything else in the list is ignored',
};

/** Irys's name for `x-paid-by` (its payers are tried after `x-paid-by`'s) */
export const irysPaidByHeader: NamedValue = { ...paidByHeader, description: "Irys's `x-paid-by`: " + paidByHeader.description };

/** a size to price: decimal digits, at most the largest safe integer (a price is exact for every such size) */
export const ByteCount = z
  .string()
  .regex(/^\d{1,16}$/)
  .transform(Number)
  .refine(Number.isSafeInteger)
  .meta({ description: 'a size in bytes, a decimal integer' });
export const byteCountParam: PathParam<typeof ByteCount> = {
  schema: ByteCount,
  description: 'the size of the signed data item to price, in bytes; another shape is `Invalid request`',
  invalid: (raw) => new InvalidRequest(`bytes ${raw}`),
};

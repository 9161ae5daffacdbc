import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { arweaveAddress } from '../wallet/address.js';
import type { RsaPrivateJwk } from '../wallet/rsaJwk.js';
import { RECEIPT_PSS } from './receiptMessage.js';

/**
 * The signed account statement (`GET /account/statement/:address`), signed as receipts are: RSA-PSS,
 * SHA-256, salt length 0, by the service wallet, whose modulus the statement carries in `public`.
 *
 * The signed message: the UTF-8 bytes of the canonical JSON of the statement without its `signature`
 * field. Canonical JSON: objects' keys sorted by UTF-16 code units (JavaScript's default sort), no
 * whitespace, strings and numbers as `JSON.stringify` writes them, arrays in their order. So a
 * verifier rebuilds the message from the statement as saved, whatever order or spacing it was saved
 * in, and one changed, added or removed field breaks the signature.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** the bytes signed: the canonical JSON of everything but `signature` */
export function statementMessage(statement: Record<string, unknown>): Buffer {
  const { signature: _, ...unsigned } = statement;
  return Buffer.from(canonicalJson(unsigned), 'utf8');
}

const signAsync = promisify(sign);

/** Signs statements off the event loop (node's crypto.sign with a callback runs on libuv's pool). */
export function createStatementSigner(jwk: RsaPrivateJwk) {
  const key: KeyObject = createPrivateKey({ key: jwk, format: 'jwk' });
  return {
    publicModulus: jwk.n,
    async sign<T extends Record<string, unknown>>(unsigned: T): Promise<T & { signature: string }> {
      const signature = await signAsync('sha256', statementMessage(unsigned), { key, ...RECEIPT_PSS });
      return { ...unsigned, signature: signature.toString('base64url') };
    },
  };
}

export type StatementVerdict = { valid: true } | { valid: false; reason: string };

/**
 * Checks a saved statement: its signature over its own fields by the key in `public`, and that key
 * being the service's: `expectedAddress` (the service wallet's address, `/info`'s `addresses.arweave`),
 * or `expectedPublic` (the modulus itself). Malformed input is a verdict, never a throw.
 */
export function verifyStatement(statement: unknown, expected: { address?: string; publicModulus?: string }): StatementVerdict {
  if (statement === null || typeof statement !== 'object' || Array.isArray(statement)) return { valid: false, reason: 'not a JSON object' };
  const s = statement as Record<string, unknown>;
  if (typeof s.public !== 'string' || typeof s.signature !== 'string') return { valid: false, reason: 'no `public` key or `signature`' };
  if (expected.publicModulus !== undefined && s.public !== expected.publicModulus) return { valid: false, reason: 'signed by another key than the one given' };
  if (expected.address !== undefined && arweaveAddress(s.public) !== expected.address)
    return { valid: false, reason: `signed by ${arweaveAddress(s.public)}, not by the service wallet ${expected.address}` };
  try {
    const key = createPublicKey({ key: { kty: 'RSA', n: s.public, e: 'AQAB' }, format: 'jwk' });
    const ok = verify('sha256', statementMessage(s), { key, ...RECEIPT_PSS }, Buffer.from(s.signature, 'base64url'));
    return ok ? { valid: true } : { valid: false, reason: 'the signature does not match the statement' };
  } catch (error) {
    return { valid: false, reason: `unreadable key or signature: ${error instanceof Error ? error.message : String(error)}` };
  }
}

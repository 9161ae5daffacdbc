import { createHash } from 'node:crypto';

/** The Arweave address of an RSA key: base64url(sha256(modulus bytes)), `n` being the JWK's base64url modulus. */
export const arweaveAddress = (publicModulus: string): string => createHash('sha256').update(Buffer.from(publicModulus, 'base64url')).digest('base64url');

import { generateKeyPair, type JsonWebKey } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * The demo's own Arweave wallet: a 4096-bit RSA key, as Arweave wallets hold (arweave signatures
 * are 512 bytes). Generated off the event loop, as it takes seconds on a busy machine: the demo
 * starts it while arlocal and the service start.
 */
export async function generateArweaveJwk(): Promise<JsonWebKey> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 4096, publicExponent: 65537 });
  return privateKey.export({ format: 'jwk' });
}

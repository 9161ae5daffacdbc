import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { ArweaveSigner, EthereumSigner, HexSolanaSigner, SolanaSigner, createData, type DataItem, type Signer } from 'arbundles';

/** Real signed items made by arbundles, with generated test-only keys. */
const jwkFile = fileURLToPath(new URL('../fixtures/arweave-jwk.json', import.meta.url));
export const arweaveJwk = JSON.parse(readFileSync(jwkFile, 'utf8'));

/** Solana's 64-byte secret key (the 32-byte seed, then the public key), base58 as Solana wallets export it. */
function solanaSecretKey(): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return bs58.encode(Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]));
}

export const signers = {
  arweave: (): Signer => new ArweaveSigner(arweaveJwk),
  ethereum: (): Signer => new EthereumSigner(randomBytes(32).toString('hex')),
  /** signature type 2 (ed25519), as Solana wallets sign */
  solana: (): Signer => new SolanaSigner(solanaSecretKey()),
  /** signature type 4: the same key, signing the hex of the message */
  hexSolana: (): Signer => new HexSolanaSigner(solanaSecretKey()),
};

export async function signedItem(
  signer: Signer,
  data: string | Uint8Array = randomBytes(64),
  tags: { name: string; value: string }[] = [{ name: 'Content-Type', value: 'application/octet-stream' }],
): Promise<DataItem> {
  const item = createData(typeof data === 'string' ? data : Buffer.from(data), signer, { tags });
  await item.sign(signer);
  return item;
}

/** The bytes as a fetch body (a copy on its own ArrayBuffer, which is what fetch's types ask for). */
export const asBody = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(bytes);

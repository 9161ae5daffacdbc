import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import bs58 from 'bs58';
import {
  ArweaveSigner,
  EthereumSigner,
  HexSolanaSigner,
  InjectedAptosSigner,
  MultiSignatureAptosSigner,
  SolanaSigner,
  TypedEthereumSigner,
  createData,
  type DataItem,
  type Signer,
} from 'arbundles';

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

/** One ed25519 key (32 bytes: `publicKey`) signing as each signature type that uses it. */
export interface Ed25519KeySigners {
  publicKey: Buffer;
  /** type 2 */
  ed25519: Signer;
  /** type 4 */
  solana: Signer;
  /** type 5: what an Aptos wallet signs, an envelope around the hex of the message */
  injectedAptos: Signer;
  /** type 6: a multisig of this key alone, 1 of 1, laid out as the Irys client does */
  multiAptos: Signer;
}

export function ed25519KeySigners(): Ed25519KeySigners {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const publicKey = Buffer.from(jwk.x!, 'base64url');
  const secret = bs58.encode(Buffer.concat([Buffer.from(jwk.d!, 'base64url'), publicKey]));
  const signed = (message: Uint8Array) => sign(null, message, privateKey);
  const aptosWallet = {
    signMessage: async ({ message, nonce }: { message: string; nonce: string }) => ({
      signature: signed(Buffer.from(`APTOS\nmessage: ${message}\nnonce: ${nonce}`)).toString('hex'),
    }),
  };
  const multisigOwner = Buffer.alloc(1025);
  publicKey.copy(multisigOwner, 0);
  multisigOwner.write('1', 1024);
  return {
    publicKey,
    ed25519: new SolanaSigner(secret),
    solana: new HexSolanaSigner(secret),
    injectedAptos: new InjectedAptosSigner(aptosWallet as never, publicKey),
    multiAptos: new MultiSignatureAptosSigner(multisigOwner, async (message: Uint8Array) => ({ signatures: [signed(message)], bitmap: [0] })),
  };
}

/** One secp256k1 key signing as type 3 (ethereum) and type 7 (typed ethereum). */
export function ethereumKeySigners(): { ethereum: Signer; typedEthereum: Signer } {
  const key = randomBytes(32).toString('hex');
  return { ethereum: new EthereumSigner(key), typedEthereum: new TypedEthereumSigner(key) };
}

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

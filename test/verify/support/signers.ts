import { readFileSync } from 'node:fs';
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import {
  ArweaveSigner,
  EthereumSigner,
  HexSolanaSigner,
  InjectedAptosSigner,
  MultiSignatureAptosSigner,
  SolanaSigner,
  TypedEthereumSigner,
  type JWKInterface,
  type Signer,
} from 'arbundles';

/**
 * One arbundles signer per ANS-104 signature type, from fixed test keys: the arweave JWK is a
 * fixture (4096-bit keys are slow to generate), the others derive from constant seeds.
 */

export const arweaveJwk = JSON.parse(readFileSync(new URL('../../fixtures/arweave-jwk.json', import.meta.url), 'utf8')) as JWKInterface;

/** 0x4c08...2318 is web3.js' documented example key, address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 */
export const ETHEREUM_PRIVATE_KEY = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';

const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

async function solanaSecret(n: number): Promise<string> {
  const privateKey = seed(n);
  return bs58.encode(Buffer.concat([privateKey, await ed.getPublicKey(privateKey)]));
}

async function injectedAptos(): Promise<Signer> {
  const privateKey = seed(5);
  const provider = {
    // what an Aptos wallet signs: an envelope around the hex of the message
    signMessage: async ({ message, nonce }: { message: string; nonce: string }) => ({
      signature: hex(await ed.sign(Buffer.from(`APTOS\nmessage: ${message}\nnonce: ${nonce}`), privateKey)),
    }),
  };
  return new InjectedAptosSigner(provider as never, Buffer.from(await ed.getPublicKey(privateKey)));
}

/** a 2-of-3 Aptos multisig laid out as the Irys client does: keys, zero slots, ASCII threshold */
export async function multiAptosSigner(signWith: readonly number[] = [0, 2], threshold = '2'): Promise<Signer> {
  const privateKeys = [seed(61), seed(62), seed(63)];
  const owner = Buffer.alloc(1025);
  for (const [i, key] of privateKeys.entries()) owner.set(await ed.getPublicKey(key), i * 32);
  owner.set(Buffer.from(threshold), 1024);
  const collectSignatures = async (message: Uint8Array) => ({
    signatures: await Promise.all(signWith.map(async (i) => Buffer.from(await ed.sign(message, privateKeys[i] as Uint8Array)))),
    bitmap: [...signWith],
  });
  return new MultiSignatureAptosSigner(owner, collectSignatures);
}

export type SignerName = 'arweave' | 'ed25519' | 'ethereum' | 'solana' | 'injectedAptos' | 'multiAptos' | 'typedEthereum';

export async function signers(): Promise<Record<SignerName, Signer>> {
  return {
    arweave: new ArweaveSigner(arweaveJwk),
    ed25519: new SolanaSigner(await solanaSecret(2)),
    ethereum: new EthereumSigner(ETHEREUM_PRIVATE_KEY),
    solana: new HexSolanaSigner(await solanaSecret(4)),
    injectedAptos: await injectedAptos(),
    multiAptos: await multiAptosSigner(),
    typedEthereum: new TypedEthereumSigner(ETHEREUM_PRIVATE_KEY),
  };
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable } from '../adapters/fs/durable.js';
import { errnoCode } from '../adapters/fs/errno.js';
import { arweaveAddress } from './address.js';
import { generateRsaJwk, parseRsaJwk, type RsaPrivateJwk } from './rsaJwk.js';
import { writeFileAtomic } from '../adapters/fs/writeFileAtomic.js';

/** The key that signs receipts and bundles, with what the service publishes about it. */
export interface ServiceWallet {
  jwk: RsaPrivateJwk;
  /** base64url(sha256(modulus)): `addresses.arweave` of `GET /info` */
  address: string;
  /** the JWK's `n`: the `public` field of every receipt */
  publicModulus: string;
}

export class WalletFileError extends Error {
  override readonly name = 'WalletFileError';
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`wallet file ${file}: ${reason}`);
  }
}

export interface LoadWalletOptions {
  /** a JWK file the operator provides; it must exist */
  walletFile?: string | undefined;
  /** without `walletFile`: `<dataDir>/wallet.json`, generated on first start */
  dataDir: string;
}

export async function loadOrCreateWallet({ walletFile, dataDir }: LoadWalletOptions): Promise<ServiceWallet> {
  if (walletFile !== undefined) return toServiceWallet(await readWalletFile(walletFile));
  const file = join(dataDir, 'wallet.json');
  const existing = await readWalletFile(file, { allowMissing: true });
  if (existing) return toServiceWallet(existing);

  await mkdirDurable(dataDir);
  const jwk = await generateRsaJwk();
  try {
    await writeFileAtomic(file, `${JSON.stringify(jwk)}\n`, { mode: 0o600, exclusive: true });
  } catch (error) {
    // Another process sharing the data dir generated one first: everyone must sign with that one.
    if (errnoCode(error) !== 'EEXIST') throw error;
    return toServiceWallet(await readWalletFile(file));
  }
  return toServiceWallet(jwk);
}

const toServiceWallet = (jwk: RsaPrivateJwk): ServiceWallet => ({
  jwk,
  address: arweaveAddress(jwk.n),
  publicModulus: jwk.n,
});

async function readWalletFile(file: string): Promise<RsaPrivateJwk>;
async function readWalletFile(file: string, opts: { allowMissing: true }): Promise<RsaPrivateJwk | undefined>;
async function readWalletFile(file: string, opts?: { allowMissing: true }): Promise<RsaPrivateJwk | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' && opts?.allowMissing) return undefined;
    throw new WalletFileError(file, `cannot be read (${code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WalletFileError(file, 'is not JSON (expected an RSA JWK)');
  }
  try {
    return parseRsaJwk(value);
  } catch (error) {
    throw new WalletFileError(file, `is not a usable RSA JWK: ${(error as Error).message}`);
  }
}

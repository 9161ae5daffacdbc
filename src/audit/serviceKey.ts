import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../adapters/fs/errno.js';
import { WalletFileError } from '../wallet/loadOrCreateWallet.js';
import { parseRsaJwk } from '../wallet/rsaJwk.js';

/**
 * The service wallet's public modulus, read where the service reads its wallet (WALLET_FILE, else
 * `<DATA_DIR>/wallet.json`), without ever creating one: an audit must not mint a wallet. Undefined
 * when there is no such file (the receipts' signer is then not compared).
 */
export async function readServicePublicModulus({ walletFile, dataDir }: { walletFile?: string | undefined; dataDir: string }): Promise<string | undefined> {
  const file = walletFile ?? join(dataDir, 'wallet.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (walletFile === undefined && errnoCode(error) === 'ENOENT') return undefined;
    throw new WalletFileError(file, `cannot be read (${errnoCode(error) ?? String(error)})`);
  }
  try {
    return parseRsaJwk(JSON.parse(text)).n;
  } catch (error) {
    throw new WalletFileError(file, `is not a usable RSA JWK: ${(error as Error).message}`);
  }
}

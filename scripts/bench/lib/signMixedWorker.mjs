// Worker for the benchmarks: signs small ANS-104 items of several signer types with arbundles
// (plain JS: no TS loader needed). One key per type per worker: the payloads make the items distinct.
import { parentPort, workerData } from 'node:worker_threads';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { ArweaveSigner, EthereumSigner, SolanaSigner, createData } from 'arbundles';

const { jwk, kinds, payloadBytes } = workerData;

/** Solana's 64-byte secret key (seed, then public key), base58 as its wallets export it */
function solanaSecretKey() {
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return bs58.encode(Buffer.concat([Buffer.from(key.d, 'base64url'), Buffer.from(key.x, 'base64url')]));
}

const signers = {
  arweave: new ArweaveSigner(jwk),
  ethereum: new EthereumSigner(randomBytes(32).toString('hex')),
  solana: new SolanaSigner(solanaSecretKey()),
};
const items = [];
for (const kind of kinds) {
  const signer = signers[kind];
  const item = createData(randomBytes(payloadBytes), signer, { tags: [{ name: 'Content-Type', value: 'application/octet-stream' }] });
  await item.sign(signer);
  items.push(item.getRaw());
}
parentPort.postMessage(items);

// Worker for the benchmarks: signs 1 KiB-class ANS-104 items of one signature type with arbundles
// (plain JS: no TS loader needed). Arweave items are signed with the given JWK; the other types with
// a key made here, one per worker: the random payloads make the items distinct.
import { parentPort, workerData } from 'node:worker_threads';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { ArweaveSigner, EthereumSigner, HexSolanaSigner, SolanaSigner, TypedEthereumSigner, createData } from 'arbundles';

const { jwk, count, payloadBytes, signatureType = 1, tags = [{ name: 'Content-Type', value: 'application/octet-stream' }] } = workerData;

/** an ed25519 secret key as Solana wallets export it: seed then public key, base58 */
function solanaSecretKey() {
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return bs58.encode(Buffer.concat([Buffer.from(key.d, 'base64url'), Buffer.from(key.x, 'base64url')]));
}

const SIGNERS = {
  1: () => new ArweaveSigner(jwk),
  2: () => new SolanaSigner(solanaSecretKey()),
  3: () => new EthereumSigner(randomBytes(32).toString('hex')),
  // signs the hex of the message, as the injected Solana wallets do
  4: () => new HexSolanaSigner(solanaSecretKey()),
  7: () => new TypedEthereumSigner(randomBytes(32).toString('hex')),
};
const makeSigner = SIGNERS[signatureType];
if (!makeSigner) throw new Error(`no benchmark signer for signature type ${signatureType}`);
const signer = makeSigner();
const items = [];
for (let i = 0; i < count; i++) {
  const item = createData(randomBytes(payloadBytes), signer, { tags });
  await item.sign(signer);
  items.push(item.getRaw());
}
parentPort.postMessage(items);

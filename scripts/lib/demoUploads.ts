import { generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { ArweaveSigner, EthereumSigner, SolanaSigner, createData, deepHash, type DataItem, type Signer } from 'arbundles';
import Arweave from 'arweave';
import bs58 from 'bs58';
import { TurboFactory, type TurboAuthenticatedClient } from '@ardrive/turbo-sdk';
import { Receipt } from '../../src/domain/receipt.js';
import { arweaveAddress } from '../../src/wallet/address.js';

/**
 * The demo's uploads, made by real clients the way their users make them: turbo-sdk (one request,
 * and multi-part), and items signed with arbundles posted with fetch. Keys are generated per run.
 * turbo-sdk takes seconds to load: the demo imports this module while arlocal and the service start.
 */
export interface DemoItem {
  /** how it was uploaded, in a few words (the summary's last column) */
  label: string;
  id: string;
  receipt: Receipt;
  payload: Uint8Array;
}

export interface DemoClients {
  /** the demo's own Arweave wallet (turbo-sdk signs with it) */
  arweaveJwk: JsonWebKey;
  arweaveAddress: string;
  turbo: TurboAuthenticatedClient;
}

const MiB = 1024 * 1024;
/** more than one turbo-sdk chunk (5 MiB), and above the free limit: the wallet pays for it */
export const MULTIPART_BYTES = 6 * MiB;

export function makeClients(serviceUrl: string, jwk: JsonWebKey): DemoClients {
  // its own logging would interleave with the demo's lines; failures come back as errors
  TurboFactory.setLogLevel('none');
  // the Turbo payment service is never asked: uploads go to the local service only
  const turbo = TurboFactory.authenticated({ privateKey: jwk as never, token: 'arweave', uploadServiceConfig: { url: serviceUrl } });
  return { arweaveJwk: jwk, arweaveAddress: arweaveAddress(jwk.n!), turbo };
}

/** turbo-sdk, one `POST /v1/tx/arweave`: it signs the item with the wallet and sends it whole. */
export async function turboSingle(clients: DemoClients): Promise<DemoItem> {
  const payload = Buffer.from('Hello, permaweb! Uploaded by turbo-sdk in one request.\n');
  const answer = await clients.turbo.upload({
    data: payload,
    dataItemOpts: {
      tags: [
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'App-Name', value: 'permaweb-demo' },
      ],
    },
    chunkingMode: 'disabled',
  });
  return { label: 'turbo-sdk, one request', id: answer.id, receipt: Receipt.parse(answer), payload };
}

/**
 * turbo-sdk, multi-part (chunkingMode 'force'): it creates an upload, posts 5 MiB chunks, asks for
 * the finalization in the background and polls the upload's status until FINALIZED.
 */
export async function turboMultipart(clients: DemoClients): Promise<DemoItem> {
  const payload = randomBytes(MULTIPART_BYTES);
  const answer = await clients.turbo.upload({
    data: payload,
    dataItemOpts: {
      tags: [
        { name: 'Content-Type', value: 'application/octet-stream' },
        { name: 'App-Name', value: 'permaweb-demo' },
      ],
    },
    chunkingMode: 'force',
  });
  return { label: 'turbo-sdk, multi-part', id: answer.id, receipt: Receipt.parse(answer), payload };
}

/** Signature types other than arweave's: ethereum (secp256k1) and solana (ed25519). */
export const otherSigners = {
  ethereum: (): Signer => new EthereumSigner(randomBytes(32).toString('hex')),
  solana: (): Signer => {
    // a Solana wallet's 64-byte secret key: the 32-byte seed, then the public key, in base58
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    return new SolanaSigner(bs58.encode(Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')])));
  },
};

/** An item signed with arbundles, posted as is with fetch to `POST /v1/tx`. */
export async function arbundlesPost(serviceUrl: string, signerName: keyof typeof otherSigners): Promise<DemoItem> {
  const signer = otherSigners[signerName]();
  const payload = Buffer.from(JSON.stringify({ hello: 'permaweb', signedWith: signerName, at: new Date().toISOString() }));
  const item: DataItem = createData(payload, signer, { tags: [{ name: 'Content-Type', value: 'application/json' }] });
  await item.sign(signer);
  const response = await fetch(`${serviceUrl}/v1/tx`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(item.getRaw()),
  });
  if (response.status !== 200) throw new Error(`POST /v1/tx answered HTTP ${response.status}: ${await response.text()}`);
  const receipt = Receipt.parse(await response.json());
  if (receipt.id !== item.id) throw new Error(`the receipt names ${receipt.id}, not the item posted (${item.id})`);
  return { label: `arbundles (${signerName}), POST /tx`, id: item.id, receipt, payload };
}

/**
 * Checks a receipt as an Arweave client does, with arweave-js and arbundles' deep hash (not the
 * service's code): the signature over ('Bundlr', version, id, deadlineHeight, timestamp) verifies
 * with the key in `public`, and that key is the service wallet's.
 */
export async function receiptChecksOut(receipt: Receipt, serviceAddress: string): Promise<boolean> {
  if (arweaveAddress(receipt.public) !== serviceAddress) return false;
  const fields = ['Bundlr', receipt.version, receipt.id, String(receipt.deadlineHeight), String(receipt.timestamp)];
  const message = await deepHash(fields.map((field) => Buffer.from(field, 'utf8')));
  return Arweave.crypto.verify(receipt.public, message, Buffer.from(receipt.signature, 'base64url'));
}

/** The receipt's fields, checked as a client checks them (a receipt that does not check out ends the demo). */
export async function showReceipt(item: DemoItem, serviceAddress: string, say: (line: string) => void): Promise<void> {
  const r = item.receipt;
  say(`   accepted: item ${item.id}`);
  say(`   receipt: owner ${r.owner}, winc ${r.winc}, deadlineHeight ${r.deadlineHeight}, timestamp ${new Date(r.timestamp).toISOString()}`);
  say(`            version ${r.version}, dataCaches ${r.dataCaches.join(', ') || '(none)'}`);
  if (!(await receiptChecksOut(r, serviceAddress))) throw new Error(`the receipt of ${item.id} does not verify against the service wallet ${serviceAddress}`);
  say(`   receipt signature verified with arweave-js: signed by the service wallet ${serviceAddress}`);
}

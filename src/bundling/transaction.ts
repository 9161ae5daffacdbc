import Arweave from 'arweave';
import type { RsaPrivateJwk } from '../wallet/rsaJwk.js';

/**
 * The format-2 Arweave transaction that carries a bundle, signed by the service wallet without the
 * bundle's bytes: a format-2 signature covers `data_size` and `data_root`, never the data itself,
 * and arweave-js computes the root from `data` only when `data_root` is empty. The bytes go up
 * separately, chunk by chunk (see chunks.ts).
 */

/** the tags that make gateways index the data as an ANS-104 bundle */
export const BUNDLE_TAGS = [
  { name: 'Bundle-Format', value: 'binary' },
  { name: 'Bundle-Version', value: '2.0.0' },
] as const;

export interface BundleTransactionInput {
  jwk: RsaPrivateJwk;
  /** from the gateway's `GET /tx_anchor`: a block hash (64 chars) or a transaction id (43 chars) */
  anchor: string;
  /** winston, decimal */
  reward: string;
  dataRoot: Uint8Array;
  dataSize: number;
}

/** The body of `POST /tx`, fields as arweave-js serialises them; `data` is empty, tags base64url. */
export interface BundleTransaction {
  format: 2;
  id: string;
  last_tx: string;
  owner: string;
  tags: { name: string; value: string }[];
  target: '';
  quantity: '0';
  data: '';
  data_size: string;
  data_root: string;
  reward: string;
  signature: string;
}

export async function signBundleTransaction(input: BundleTransactionInput): Promise<BundleTransaction> {
  const { jwk, anchor, reward, dataRoot, dataSize } = input;
  if (!/^(?:[A-Za-z0-9_-]{43}|[A-Za-z0-9_-]{64})$/.test(anchor)) throw new RangeError(`anchor ${JSON.stringify(anchor)} is not a tx id or block hash`);
  if (!/^(?:0|[1-9][0-9]*)$/.test(reward)) throw new RangeError(`reward ${JSON.stringify(reward)} is not a winston amount`);
  if (dataRoot.byteLength !== 32) throw new RangeError(`data root of ${dataRoot.byteLength} bytes, expected 32`);
  // an empty transaction has no data root at all; a bundle is never empty (its header alone is 32 bytes)
  if (!Number.isSafeInteger(dataSize) || dataSize <= 0) throw new RangeError(`data size ${dataSize}`);

  // a client with no host: signing needs no network, and nothing here ever sends
  const arweave = Arweave.init({});
  const root = Buffer.from(dataRoot).toString('base64url');
  const tx = arweave.transactions.fromRaw({
    format: 2,
    last_tx: anchor,
    owner: jwk.n,
    target: '',
    quantity: '0',
    data: new Uint8Array(0),
    data_size: String(dataSize),
    data_root: root,
    reward,
  });
  for (const { name, value } of BUNDLE_TAGS) tx.addTag(name, value);
  await arweave.transactions.sign(tx, jwk);
  // Had arweave-js derived the root from the (empty) data, the signature would cover the wrong root.
  if (tx.data_root !== root || tx.chunks !== undefined) throw new Error('arweave-js recomputed the data root while signing');

  return {
    format: 2,
    id: tx.id,
    last_tx: tx.last_tx,
    owner: tx.owner,
    tags: tx.tags.map(({ name, value }) => ({ name, value })),
    target: '',
    quantity: '0',
    data: '',
    data_size: tx.data_size,
    data_root: tx.data_root,
    reward: tx.reward,
    signature: tx.signature,
  };
}

import { expect } from 'chai';
import Arweave from 'arweave';
import { computeDataRoot, signBundleTransaction, type BundleTransaction } from '../../src/bundling/index.js';
import { loadTestJwk } from '../fixtures/testWallet.js';
import { asAsync, bytesOf } from './support/random.js';

const ANCHOR = Buffer.alloc(48, 7).toString('base64url');
const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('bundle transaction', () => {
  const jwk = loadTestJwk();
  const arweave = Arweave.init({});
  const data = bytesOf(700 * 1024 + 3, 11);
  let tx: BundleTransaction;
  before(async () => {
    const tree = await computeDataRoot(asAsync([data]));
    tx = await signBundleTransaction({ jwk, anchor: ANCHOR, reward: '123456789', dataRoot: tree.dataRoot, dataSize: tree.dataSize });
  });

  /** what arweave-js makes of the same fields when it holds the whole data */
  async function withFullData() {
    const full = await arweave.createTransaction({ data, last_tx: ANCHOR, reward: '123456789' }, jwk);
    full.addTag('Bundle-Format', 'binary');
    full.addTag('Bundle-Version', '2.0.0');
    return full;
  }

  it('is a format-2 transaction with empty data, the data size and root, and the bundle tags', () => {
    const { id, signature, data_root, ...fields } = tx;
    expect(fields).to.deep.equal({
      format: 2,
      last_tx: ANCHOR,
      owner: jwk.n,
      tags: [
        { name: b64('Bundle-Format'), value: b64('binary') },
        { name: b64('Bundle-Version'), value: b64('2.0.0') },
      ],
      target: '',
      quantity: '0',
      data: '',
      data_size: String(700 * 1024 + 3),
      reward: '123456789',
    });
    expect([id.length, Buffer.from(signature, 'base64url').byteLength, Buffer.from(data_root, 'base64url').byteLength]).to.deep.equal([43, 512, 32]);
  });

  it('verifies with arweave-js from its JSON alone', async () => {
    expect(await arweave.transactions.verify(arweave.transactions.fromRaw(tx))).to.equal(true);
  });

  it('has the data root arweave-js computes from the whole data, and the same signed message', async () => {
    const full = await withFullData();
    await full.prepareChunks(data);
    expect(tx.data_root).to.equal(full.data_root);
    const ours = await arweave.transactions.fromRaw(tx).getSignatureData();
    expect(Buffer.from(ours).toString('hex')).to.equal(Buffer.from(await full.getSignatureData()).toString('hex'));
  });

  it('is the transaction arweave-js would post with the whole data, but for the data and the PSS salt', async () => {
    // RSA-PSS signatures are salted: two signings never match, so ours is carried over and checked
    const full = await withFullData();
    full.setSignature({ id: tx.id, owner: tx.owner, signature: tx.signature });
    expect(await arweave.transactions.verify(full)).to.equal(true);
    const { data_tree: _tree, ...json } = full.toJSON();
    expect({ ...json, data: '' }).to.deep.equal({ ...tx, tags: tx.tags.map((t) => ({ ...t })) });
  });

  it('has the id arweave-js derives from the signature', async () => {
    const id = Buffer.from(await Arweave.crypto.hash(Buffer.from(tx.signature, 'base64url'))).toString('base64url');
    expect(tx.id).to.equal(id);
  });

  it('refuses fields a gateway would reject', async () => {
    const good = { jwk, anchor: ANCHOR, reward: '1', dataRoot: new Uint8Array(32), dataSize: 10 };
    const failure = (overrides: object) =>
      signBundleTransaction({ ...good, ...overrides }).then(
        () => 'signed',
        (e: Error) => e.message,
      );
    expect(await failure({ anchor: 'abc' })).to.equal('anchor "abc" is not a tx id or block hash');
    expect(await failure({ reward: '01' })).to.equal('reward "01" is not a winston amount');
    expect(await failure({ reward: '-1' })).to.equal('reward "-1" is not a winston amount');
    expect(await failure({ dataRoot: new Uint8Array(31) })).to.equal('data root of 31 bytes, expected 32');
    expect(await failure({ dataSize: 0 })).to.equal('data size 0');
  });
});

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import Arweave from 'arweave';
import { EthereumSigner, TypedEthereumSigner, type Signer } from 'arbundles';
import { nativeAddress, toChecksumAddress } from '../../src/verify/index.js';
import { signedItem } from './support/items.js';
import { outcomeOf } from './support/outcome.js';
import { arweaveJwk, signers, type SignerName } from './support/signers.js';

async function verified(signer: Signer) {
  const outcome = await outcomeOf([(await signedItem(signer, 'x')).getRaw()]);
  if (!('valid' in outcome)) throw outcome.error;
  return outcome.valid;
}

const sha256url = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');

describe('native addresses', () => {
  let all: Record<SignerName, Signer>;
  before(async () => {
    all = await signers();
  });

  it('checksums the EIP-55 test vectors from the EIP', () => {
    const vectors = [
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
      '0xde709f2102306220921060314715629080e2fb77',
      '0x27b1fdb04752bbc536007a920d24acb045561c26',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ];
    for (const address of vectors) {
      expect(toChecksumAddress(address.toLowerCase())).to.equal(address);
      expect(toChecksumAddress(address.slice(2).toUpperCase())).to.equal(address);
    }
  });

  it('gives ethereum items (type 3) the address of the private key 1', async () => {
    const signer = new EthereumSigner('0000000000000000000000000000000000000000000000000000000000000001');
    expect((await verified(signer)).nativeAddress).to.equal('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('gives typed ethereum items (type 7), whose owner is the ASCII address, the same EIP-55 address', async () => {
    const signer = new TypedEthereumSigner('0000000000000000000000000000000000000000000000000000000000000001');
    expect(Buffer.from(signer.publicKey).toString('latin1')).to.equal('0x7e5f4552091a69125d5dfcb7b8c2659029395bdf');
    expect((await verified(signer)).nativeAddress).to.equal('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('gives both ethereum types of web3.js example key 0x4c08...2318 its documented address', async () => {
    expect((await verified(all.ethereum)).nativeAddress).to.equal('0x2c7536E3605D9C16a7a3D7b1898e529396a65c23');
    expect((await verified(all.typedEthereum)).nativeAddress).to.equal('0x2c7536E3605D9C16a7a3D7b1898e529396a65c23');
  });

  it('accepts a typed ethereum owner written in EIP-55 case', async () => {
    const signer = new TypedEthereumSigner('0000000000000000000000000000000000000000000000000000000000000001');
    Object.defineProperty(signer, 'publicKey', { value: Buffer.from('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf') });
    expect((await verified(signer)).nativeAddress).to.equal('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('encodes ed25519 and solana public keys (types 2 and 4) in base58', async () => {
    expect(nativeAddress(2, Buffer.alloc(32))).to.equal('11111111111111111111111111111111');
    const tokenProgram = Buffer.from('06ddf6e1d765a193d9cbe146ceeb79ac1cb485ed5f5b37913a8cf5857eff00a9', 'hex');
    expect(nativeAddress(4, tokenProgram)).to.equal('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    for (const name of ['ed25519', 'solana'] as const) {
      // arbundles' solana signers keep their public key in base58 as `pk`
      expect((await verified(all[name])).nativeAddress).to.equal((all[name] as unknown as { pk: string }).pk);
    }
  });

  it('gives arweave items (type 1) the wallet address arweave-js derives from the JWK', async () => {
    const expected = await Arweave.init({}).wallets.jwkToAddress(arweaveJwk);
    const item = await verified(all.arweave);
    expect(item.nativeAddress).to.equal(expected);
    expect(item.owner).to.equal(expected);
  });

  it('uses base64url(sha256(owner)) for the aptos types 5 and 6', async () => {
    for (const name of ['injectedAptos', 'multiAptos'] as const) {
      const item = await verified(all[name]);
      expect(item.nativeAddress).to.equal(sha256url(all[name].publicKey));
      expect(item.owner).to.equal(item.nativeAddress);
    }
  });

  it('keeps the receipt owner as base64url(sha256(owner bytes)) for every type', async () => {
    for (const signer of Object.values(all)) {
      expect((await verified(signer)).owner).to.equal(sha256url(signer.publicKey));
    }
  });

  it('refuses unsupported types and owners of the wrong length', () => {
    expect(() => nativeAddress(9, Buffer.alloc(32))).to.throw('unsupported signature type 9');
    expect(() => nativeAddress(2, Buffer.alloc(31))).to.throw('type 2 owner must be 32 bytes');
  });
});

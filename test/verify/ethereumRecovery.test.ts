import { expect } from 'chai';
import fc from 'fast-check';
import { EthereumSigner } from 'arbundles';
import { hashMessage } from '@ethersproject/hash';
import { recoverPublicKey } from '@ethersproject/signing-key';
import { Wallet } from '@ethersproject/wallet';
import { schemeFor } from '../../src/verify/schemes/index.js';

/**
 * Type 3 (ethereum personal message) checks that v recovers the owner's key with libsecp256k1's
 * native recovery. Its verdict must be the one of the check it replaced, arbundles' verification
 * and ethers' recovery (pure JavaScript) of the owner's key, on genuine signatures and on every
 * kind of damage: another v, another r or s, another message, another key.
 */
const scheme = schemeFor(3)!;

const reference = async (owner: Buffer, message: Buffer, signature: Buffer): Promise<boolean> => {
  try {
    if ((await EthereumSigner.verify(owner, message, signature)) !== true) return false;
    return recoverPublicKey(hashMessage(message), signature) === `0x${owner.toString('hex')}`;
  } catch {
    return false;
  }
};
/** the scheme's verdict, its shape check included (as the verifier runs it) */
const verdict = async (owner: Buffer, message: Buffer, signature: Buffer) =>
  scheme.checkHeader(signature, owner) === undefined && (await scheme.verify(owner, message, signature));
const referenceVerdict = async (owner: Buffer, message: Buffer, signature: Buffer) =>
  scheme.checkHeader(signature, owner) === undefined && (await reference(owner, message, signature));

const wallets = [0, 1, 2].map((i) => new Wallet(`0x${String(i + 1).padStart(64, '0')}`));
const ownerOf = (wallet: Wallet) => Buffer.from(wallet.publicKey.slice(2), 'hex');
const signatureOf = async (wallet: Wallet, message: Buffer) => Buffer.from((await wallet.signMessage(message)).slice(2), 'hex');

describe('ethereum items (type 3): native key recovery', function () {
  this.timeout(120_000);

  it('accepts genuine signatures and refuses the other v, as the JavaScript recovery does', async () => {
    for (const wallet of wallets) {
      const message = Buffer.from(`a deep hash for ${wallet.address}`);
      const signature = await signatureOf(wallet, message);
      const flipped = Buffer.from(signature);
      flipped[64] = signature[64] === 27 ? 28 : 27;
      expect([await verdict(ownerOf(wallet), message, signature), await verdict(ownerOf(wallet), message, flipped)]).to.deep.equal([true, false]);
      expect([await referenceVerdict(ownerOf(wallet), message, signature), await referenceVerdict(ownerOf(wallet), message, flipped)]).to.deep.equal([true, false]);
    }
  });

  it('gives the verdict of arbundles and ethers on random messages, damage and keys', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 64 }),
        fc.constantFrom(0, 1, 2),
        fc.constantFrom(0, 1, 2),
        fc.oneof(
          fc.constant({ kind: 'none' as const }),
          fc.record({ kind: fc.constant('byte' as const), at: fc.integer({ min: 0, max: 64 }), xor: fc.integer({ min: 1, max: 255 }) }),
          fc.record({ kind: fc.constant('v' as const), v: fc.integer({ min: 0, max: 255 }) }),
          fc.record({ kind: fc.constant('message' as const), xor: fc.integer({ min: 1, max: 255 }) }),
        ),
        async (bytes, signer, claimed, damage) => {
          const message = Buffer.from(bytes);
          const signature = await signatureOf(wallets[signer]!, message);
          let checked = message;
          if (damage.kind === 'byte') signature[damage.at] = signature[damage.at]! ^ damage.xor;
          if (damage.kind === 'v') signature[64] = damage.v;
          if (damage.kind === 'message') checked = Buffer.concat([message, Buffer.from([damage.xor])]);
          const owner = ownerOf(wallets[claimed]!);
          const expected = await referenceVerdict(owner, checked, signature);
          expect(await verdict(owner, checked, signature)).to.equal(expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});

import { expect } from 'chai';
import fc from 'fast-check';
import { EthereumSigner, TypedEthereumSigner } from 'arbundles';
import { hashMessage } from '@ethersproject/hash';
import { recoverPublicKey } from '@ethersproject/signing-key';
import { schemeFor } from '../../src/verify/schemes/index.js';

/**
 * The ethereum types recover the signer's key with libsecp256k1's native recovery. Their verdicts
 * must be the ones of the checks they replaced, in pure JavaScript: for type 3 arbundles'
 * verification and ethers' recovery of the owner's key, for type 7 arbundles' verification (ethers'
 * verifyTypedData). On genuine signatures and on every kind of damage: another v, another r or s,
 * another message, another signer.
 */
const settled = async (check: () => Promise<boolean> | boolean) => {
  try {
    return (await check()) === true;
  } catch {
    return false;
  }
};
const TYPES = {
  3: {
    signer: (key: string) => new EthereumSigner(key),
    reference: async (owner: Buffer, message: Buffer, signature: Buffer) =>
      (await settled(() => EthereumSigner.verify(owner, message, signature))) &&
      settled(() => recoverPublicKey(hashMessage(message), signature) === `0x${owner.toString('hex')}`),
  },
  7: {
    signer: (key: string) => new TypedEthereumSigner(key),
    reference: (owner: Buffer, message: Buffer, signature: Buffer) => settled(() => TypedEthereumSigner.verify(owner, message, signature)),
  },
} as const;

const keys = [1, 2, 3].map((i) => String(i).padStart(64, '0'));

for (const type of [3, 7] as const) {
  describe(`ethereum items (type ${type}): native key recovery`, function () {
    this.timeout(120_000);
    const scheme = schemeFor(type)!;
    const signers = keys.map((key) => TYPES[type].signer(key));
    /** the scheme's verdict, its shape check included (as the verifier runs it), and the reference's */
    const verdicts = async (owner: Buffer, message: Buffer, signature: Buffer) => {
      const shaped = scheme.checkHeader(signature, owner) === undefined;
      return {
        scheme: shaped && (await scheme.verify(owner, message, signature)),
        reference: shaped && (await TYPES[type].reference(owner, message, signature)),
      };
    };

    it('accepts genuine signatures and refuses the other v, as the JavaScript checks do', async () => {
      for (const signer of signers) {
        const message = Buffer.from('a deep hash is 48 bytes long: SHA-384 of it all.');
        const signature = Buffer.from(await signer.sign(message));
        const flipped = Buffer.from(signature);
        flipped[64] = signature[64] === 27 ? 28 : 27;
        expect(await verdicts(signer.publicKey, message, signature)).to.deep.equal({ scheme: true, reference: true });
        expect(await verdicts(signer.publicKey, message, flipped)).to.deep.equal({ scheme: false, reference: false });
      }
    });

    it('gives the verdict of the JavaScript checks on random messages, damage and signers', async () => {
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
            const signature = Buffer.from(await signers[signer]!.sign(message));
            let checked = message;
            if (damage.kind === 'byte') signature[damage.at] = signature[damage.at]! ^ damage.xor;
            if (damage.kind === 'v') signature[64] = damage.v;
            if (damage.kind === 'message') checked = Buffer.concat([message, Buffer.from([damage.xor])]);
            const { scheme: got, reference } = await verdicts(signers[claimed]!.publicKey, checked, signature);
            expect(got).to.equal(reference);
          },
        ),
        { numRuns: 300 },
      );
    });
  });
}

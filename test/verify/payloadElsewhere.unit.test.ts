import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { DataItemTooLarge, InvalidDataItem } from '../../src/domain/errors.js';
import { createDataItemVerifier } from '../../src/verify/index.js';
import { signedItem, signers } from '../support/items.js';

const sha384 = (bytes: Uint8Array) => createHash('sha384').update(bytes).digest();

/** header bytes through writeHeader in pieces of `piece`; what each call took, summed */
function feedHeader(verifier: ReturnType<typeof createDataItemVerifier>, raw: Uint8Array, piece: number) {
  let taken = 0;
  for (let at = 0; at < raw.length; at += piece) taken += verifier.writeHeader(raw.subarray(at, at + piece));
  return taken;
}

describe('data item verifier with the payload hashed elsewhere (a hashing worker)', () => {
  it('takes exactly the header through writeHeader, and verifies the item given its payload as a SHA-384 and a length', async () => {
    for (const signer of [signers.arweave(), signers.ethereum(), signers.solana()]) {
      const raw = (await signedItem(signer, randomBytes(70_000))).getRaw();
      const whole = createDataItemVerifier({ maxSize: 1 << 20 });
      whole.write(raw);
      const expected = await whole.end();

      const split = createDataItemVerifier({ maxSize: 1 << 20 });
      const start = expected.payloadDataStart;
      expect(feedHeader(split, raw, 100), `signature type ${expected.signatureType}`).to.equal(start);
      expect(split.header?.payloadDataStart).to.equal(start);
      const verified = await split.endWithPayload({ sha384: sha384(raw.subarray(start)), byteLength: raw.length - start });
      expect(verified, `signature type ${expected.signatureType}`).to.deep.equal(expected);
    }
  });

  it('refuses the item when the payload digest given is not the signed one, or its length is not', async () => {
    const raw = (await signedItem(signers.arweave(), randomBytes(5000))).getRaw();
    const attempts = [
      (start: number) => ({ sha384: sha384(raw.subarray(start + 1)), byteLength: raw.length - start }),
      (start: number) => ({ sha384: sha384(raw.subarray(start)), byteLength: raw.length - start - 1 }),
    ];
    for (const attempt of attempts) {
      const verifier = createDataItemVerifier({ maxSize: 1 << 20 });
      const start = feedHeader(verifier, raw, 4096);
      const failure = await verifier.endWithPayload(attempt(start)).catch((error: unknown) => error);
      expect(failure).to.be.instanceOf(InvalidDataItem);
      expect((failure as Error).message).to.equal('signature of type 1 does not verify');
    }
  });

  it('refuses a payload that takes the item past the size limit, and a header never completed', async () => {
    const raw = (await signedItem(signers.arweave(), randomBytes(5000))).getRaw();
    const verifier = createDataItemVerifier({ maxSize: raw.length - 1 });
    const start = feedHeader(verifier, raw, 4096);
    const failure = await verifier.endWithPayload({ sha384: sha384(raw.subarray(start)), byteLength: raw.length - start }).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(DataItemTooLarge);

    const truncated = createDataItemVerifier({ maxSize: 1 << 20 });
    expect(truncated.writeHeader(raw.subarray(0, 600))).to.equal(600);
    const refused = await truncated.endWithPayload({ sha384: sha384(new Uint8Array(0)), byteLength: 0 }).catch((error: unknown) => error);
    expect((refused as Error).message).to.equal('truncated: 600 bytes end inside the header');
  });
});

import { constants, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import * as ed from '@noble/ed25519';
import { publicKeyCache } from '../../src/verify/schemes/publicKeys.js';
import { arweaveScheme } from '../../src/verify/schemes/arweave.js';
import { opensslVerifies } from '../../src/verify/schemes/ed25519Native.js';
import { arweaveJwk } from './support/signers.js';

/**
 * Owners' public keys are imported once and kept (a bounded number of them): a kept key must be the
 * key of exactly those owner bytes, and a key that cannot be imported must not be kept.
 */

const rsaKey = (n: string): KeyObject => createPublicKey({ key: { kty: 'RSA', n, e: 'AQAB' }, format: 'jwk' });
const serviceJwk = JSON.parse(readFileSync(new URL('../fixtures/test-only-service-wallet.json', import.meta.url), 'utf8')) as { n: string };
const ownerOf = (jwk: { n: string }) => Buffer.from(jwk.n, 'base64url');
/** the same bytes but the last: a different owner that shares any prefix with this one */
const lastByteChanged = (owner: Buffer) => Buffer.concat([owner.subarray(0, -1), Buffer.from([owner.at(-1)! ^ 1])]);

describe('public keys kept per owner', () => {
  it('imports an owner once, found again by equal bytes in another buffer or at an offset', () => {
    const imported: string[] = [];
    const keys = publicKeyCache(4, (n) => (imported.push(n), rsaKey(n)));
    const owner = ownerOf(arweaveJwk);
    const first = keys.of(owner);
    const inLargerBuffer = Buffer.concat([Buffer.from([1, 2, 3]), owner]).subarray(3);
    expect(keys.of(Buffer.from(owner))).to.equal(first);
    expect(keys.of(inLargerBuffer)).to.equal(first);
    expect(imported).to.deep.equal([arweaveJwk.n]);
    expect(first.export({ format: 'jwk' }).n).to.equal(arweaveJwk.n);
  });

  it('keeps each owner its own key, also owners that differ in their last byte only', () => {
    const keys = publicKeyCache(4, rsaKey);
    const a = keys.of(ownerOf(arweaveJwk));
    const b = keys.of(ownerOf(serviceJwk));
    const c = keys.of(lastByteChanged(ownerOf(arweaveJwk)));
    expect(new Set([a, b, c]).size).to.equal(3);
    expect(b.export({ format: 'jwk' }).n).to.equal(serviceJwk.n);
    expect(c.export({ format: 'jwk' }).n).to.equal(lastByteChanged(ownerOf(arweaveJwk)).toString('base64url'));
    expect(keys.of(ownerOf(arweaveJwk))).to.equal(a);
    expect(keys.size).to.equal(3);
  });

  it('keeps at most its bound, dropping the owner used least recently', async () => {
    const imported: string[] = [];
    const keys = publicKeyCache(2, (x) => (imported.push(x), createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })));
    const publics = await Promise.all([1, 2, 3].map(async (n) => Buffer.from(await ed.getPublicKey(new Uint8Array(32).fill(n)))));
    keys.of(publics[0]!);
    keys.of(publics[1]!);
    keys.of(publics[0]!); // the first is now the most recent
    keys.of(publics[2]!); // drops the second
    expect(keys.size).to.equal(2);
    keys.of(publics[0]!);
    keys.of(publics[1]!);
    const encoded = publics.map((p) => p.toString('base64url'));
    expect(imported).to.deep.equal([encoded[0], encoded[1], encoded[2], encoded[1]]);
  });

  it('does not keep a key that cannot be imported, and tries it again the next time', () => {
    let attempts = 0;
    const keys = publicKeyCache(4, (x) => {
      attempts += 1;
      return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    });
    const tooShort = Buffer.alloc(31, 1);
    expect(() => keys.of(tooShort)).to.throw('Invalid JWK data');
    expect(() => keys.of(tooShort)).to.throw('Invalid JWK data');
    expect(attempts).to.equal(2);
    expect(keys.size).to.equal(0);
  });
});

describe('signature schemes with kept keys', () => {
  it('arweave: a signature verifies under its owner only, in any order of owners', async () => {
    const message = Buffer.from('a deep hash stands here'.padEnd(48, '.'));
    const signature = sign('sha256', message, {
      key: createPrivateKey({ key: arweaveJwk as never, format: 'jwk' }),
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    });
    const [signer, other, nearly] = [ownerOf(arweaveJwk), ownerOf(serviceJwk), lastByteChanged(ownerOf(arweaveJwk))];
    const verdicts = [];
    for (const owner of [signer, other, nearly, signer, nearly, other]) verdicts.push(await arweaveScheme.verify(owner, message, signature));
    expect(verdicts).to.deep.equal([true, false, false, true, false, false]);
  });

  it('ed25519: a signature verifies under its owner only, and a key OpenSSL refuses stays refused', async () => {
    const [a, b] = [ed.utils.randomPrivateKey(), ed.utils.randomPrivateKey()];
    const [ownerA, ownerB] = [Buffer.from(await ed.getPublicKey(a)), Buffer.from(await ed.getPublicKey(b))];
    const message = Buffer.from('signed bytes');
    const signature = Buffer.from(await ed.sign(message, a));
    const nearly = lastByteChanged(ownerA);
    const verdicts = [];
    for (const owner of [ownerA, ownerB, nearly, ownerA, nearly, ownerB]) verdicts.push(await opensslVerifies(owner, message, signature));
    expect(verdicts).to.deep.equal([true, false, false, true, false, false]);
    const tooShort = ownerA.subarray(1); // OpenSSL refuses to import it
    expect([await opensslVerifies(tooShort, message, signature), await opensslVerifies(tooShort, message, signature)]).to.deep.equal([false, false]);
  });
});

import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Arweave from 'arweave';
import { expect } from 'chai';
import { loadOrCreateWallet, WalletFileError, type ServiceWallet } from '../../src/wallet/loadOrCreateWallet.js';
import { testWalletFile as fixtureWallet } from '../fixtures/testWallet.js';

async function expectWalletError(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(WalletFileError);
  expect((error as Error).message).to.equal(message);
}

describe('service wallet', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wallet-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('on a first start without a wallet file', () => {
    // One generated wallet (a 4096-bit key takes seconds) shared by the tests that only read it.
    let generatedIn: string;
    let generated: ServiceWallet;
    before(async () => {
      generatedIn = await mkdtemp(join(tmpdir(), 'wallet-test-'));
      generated = await loadOrCreateWallet({ dataDir: join(generatedIn, 'data', 'nested') });
    });
    after(() => rm(generatedIn, { recursive: true, force: true }));

    it('generates <dataDir>/wallet.json readable by the owner only, creating the data dir', async () => {
      const dataDir = join(generatedIn, 'data', 'nested');
      const file = join(dataDir, 'wallet.json');

      expect((await stat(file)).mode & 0o777).to.equal(0o600);
      expect(JSON.parse(await readFile(file, 'utf8'))).to.deep.equal(generated.jwk);
      expect(await readdir(dataDir)).to.deep.equal(['wallet.json']);
    });

    it('generates a 4096-bit key with exponent 65537 whose address is the one arweave-js computes', async () => {
      expect(generated.jwk.e).to.equal('AQAB');
      expect(Buffer.from(generated.jwk.n, 'base64url').length).to.equal(512);
      expect(generated.publicModulus).to.equal(generated.jwk.n);
      expect(generated.address).to.equal(await Arweave.init({}).wallets.jwkToAddress(generated.jwk));
    });

    it('loads the same wallet again on the next start', async () => {
      const again = await loadOrCreateWallet({ dataDir: join(generatedIn, 'data', 'nested') });

      expect(again.address).to.equal(generated.address);
      expect(again.jwk).to.deep.equal(generated.jwk);
    });
  });

  describe('without a wallet file', () => {
    it('gives two processes starting at once the same wallet', async () => {
      const [a, b] = await Promise.all([loadOrCreateWallet({ dataDir: dir }), loadOrCreateWallet({ dataDir: dir })]);

      expect(a.address).to.equal(b.address);
      expect(await readdir(dir)).to.deep.equal(['wallet.json']);
    });

    it('refuses a damaged wallet.json instead of replacing it', async () => {
      const file = join(dir, 'wallet.json');
      await writeFile(file, '{"kty":"RSA"');

      await expectWalletError(loadOrCreateWallet({ dataDir: dir }), `wallet file ${file}: is not JSON (expected an RSA JWK)`);
      expect(await readFile(file, 'utf8')).to.equal('{"kty":"RSA"');
    });
  });

  describe('with a wallet file', () => {
    it('uses that JWK and writes nothing into the data dir', async () => {
      const jwk = JSON.parse(await readFile(fixtureWallet, 'utf8'));
      const dataDir = join(dir, 'data');

      const wallet = await loadOrCreateWallet({ walletFile: fixtureWallet, dataDir });

      expect(wallet.jwk).to.deep.equal(jwk);
      expect(wallet.address).to.equal(await Arweave.init({}).wallets.jwkToAddress(jwk));
      expect(await readdir(dir)).to.deep.equal([]);
    });

    it('names the file when it cannot be read', async () => {
      const file = join(dir, 'missing.json');
      await expectWalletError(loadOrCreateWallet({ walletFile: file, dataDir: dir }), `wallet file ${file}: cannot be read (ENOENT)`);
    });

    it('names the file when it is not an RSA JWK', async () => {
      const file = join(dir, 'ec.json');
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await writeFile(file, JSON.stringify(privateKey.export({ format: 'jwk' })));

      await expectWalletError(loadOrCreateWallet({ walletFile: file, dataDir: dir }), `wallet file ${file}: is not a usable RSA JWK: kty is "EC", not "RSA"`);
    });

    it('names the file when the RSA JWK has no private part', async () => {
      const file = join(dir, 'public.json');
      const { n, e } = JSON.parse(await readFile(fixtureWallet, 'utf8'));
      await writeFile(file, JSON.stringify({ kty: 'RSA', n, e }));

      await expectWalletError(
        loadOrCreateWallet({ walletFile: file, dataDir: dir }),
        `wallet file ${file}: is not a usable RSA JWK: field "d" is missing or not base64url`,
      );
    });

    it('refuses an RSA key that is not 4096 bits', async () => {
      const file = join(dir, 'small.json');
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      await writeFile(file, JSON.stringify(privateKey.export({ format: 'jwk' })));

      await expectWalletError(
        loadOrCreateWallet({ walletFile: file, dataDir: dir }),
        `wallet file ${file}: is not a usable RSA JWK: modulus is 2048 bits, Arweave wallets are 4096`,
      );
    });

    it('refuses a JWK whose private part belongs to another modulus', async () => {
      const file = join(dir, 'mixed.json');
      const jwk = JSON.parse(await readFile(fixtureWallet, 'utf8'));
      const n = Buffer.from(jwk.n, 'base64url');
      n[100] = n[100]! ^ 1;
      await writeFile(file, JSON.stringify({ ...jwk, n: n.toString('base64url') }));

      await expectWalletError(
        loadOrCreateWallet({ walletFile: file, dataDir: dir }),
        `wallet file ${file}: is not a usable RSA JWK: the private fields do not match the modulus n`,
      );
    });
  });
});

import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { TurboFactory, type TurboAuthenticatedClient } from '@ardrive/turbo-sdk';
import { startTestService, type TestService } from '../support/testService.js';
import { arweaveJwk } from '../support/items.js';
import { arweaveAccepts } from '../support/clientChecks.js';
import type { Receipt } from '../../src/domain/receipt.js';
import { recordForeignConnections, recordRequests, type RequestLog } from './support/observe.js';
import { expectNewStatus, expectStoredAsSigned } from './support/stored.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** turbo-sdk's smallest (and default) chunk: 5 MiB */
const TURBO_CHUNK = 5 * MiB;
const contentType = 'application/x-turbo-test';
const tags = [{ name: 'Content-Type', value: contentType }];

/** The receipt owner of an arweave signer: base64url(sha256(modulus)). */
const ownerOfJwk = (jwk: { n: string }) => createHash('sha256').update(Buffer.from(jwk.n, 'base64url')).digest('base64url');

describe('turbo-sdk 1.43 against the service', function () {
  this.timeout(60_000);
  let service: TestService;
  let turbo: TurboAuthenticatedClient;
  let requests: RequestLog;
  let foreign: ReturnType<typeof recordForeignConnections>;

  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(64 * MiB) });
    requests = recordRequests(service.server!);
    // the service's own gateway is its business; anything else the client reaches is not
    foreign = recordForeignConnections([service.url, service.gatewayUrl]);
    turbo = TurboFactory.authenticated({ privateKey: arweaveJwk, token: 'arweave', uploadServiceConfig: { url: service.url } });
  });
  beforeEach(() => requests.clear());
  after(async () => {
    foreign.stop();
    requests.stop();
    await service.close();
  });

  async function expectAccepted(answer: { id: string }, payload: Uint8Array) {
    const receipt = answer as unknown as Receipt;
    expect(receipt.owner).to.equal(ownerOfJwk(arweaveJwk));
    expect(receipt.winc).to.equal('0');
    expect(await arweaveAccepts(receipt)).to.equal(true);
    const item = await expectStoredAsSigned(service, answer.id, payload);
    await expectNewStatus(service, answer.id, { raw: item.getRaw().length, payload: payload.length, contentType });
    // ENVIRONMENT.md: it never calls the payment service (or a gateway) during an upload
    expect(foreign.origins, 'hosts other than the service').to.deep.equal([]);
  }

  describe('single upload (chunkingMode disabled)', () => {
    for (const [name, size] of [
      ['1 KiB', KiB],
      ['1 MiB', MiB],
      ['20 MiB', 20 * MiB],
    ] as const) {
      it(`uploads ${name} with one POST /v1/tx/arweave, reaching no other host, and the service stores exactly the signed item`, async () => {
        const payload = randomBytes(size);
        const answer = await turbo.upload({ data: payload, dataItemOpts: { tags }, chunkingMode: 'disabled' });
        expect(requests.entries).to.deep.equal(['POST /v1/tx/arweave -> 200']);
        await expectAccepted(answer, payload);
      });
    }

    it('uploads an item with tags left empty, 129 tags in all, as arbundles (and apps writing optional tags) make them', async () => {
      const payload = randomBytes(KiB);
      const many = Array.from({ length: 128 }, (_, i) => ({ name: `T${i}`, value: '' }));
      const answer = await turbo.upload({ data: payload, dataItemOpts: { tags: [...tags, ...many] }, chunkingMode: 'disabled' });
      expect(requests.entries).to.deep.equal(['POST /v1/tx/arweave -> 200']);
      await expectAccepted(answer, payload);
    });
  });

  describe('multi-part upload (chunkingMode force)', () => {
    for (const [name, size] of [
      ['1 KiB', KiB],
      ['1 MiB', MiB],
      ['20 MiB', 20 * MiB],
    ] as const) {
      it(`uploads ${name} in 5 MiB chunks, finalizes asynchronously and polls status until FINALIZED`, async () => {
        const payload = randomBytes(size);
        const answer = await turbo.upload({ data: payload, dataItemOpts: { tags }, chunkingMode: 'force' });
        const seen = requests.entries;
        const item = await expectStoredAsSigned(service, answer.id, payload);
        const raw = item.getRaw().length;

        const [create, ...rest] = seen;
        expect(create).to.equal(`GET /v1/chunks/arweave/-1/-1?chunkSize=${TURBO_CHUNK} -> 200`);
        const uploadId = rest[0]!.split('/')[4];
        const chunks = Array.from({ length: Math.ceil(raw / TURBO_CHUNK) }, (_, i) => `POST /v1/chunks/arweave/${uploadId}/${i * TURBO_CHUNK} -> 200`);
        // up to 5 chunks are in flight at once: their arrival order is not the client's
        expect(rest.slice(0, chunks.length).sort()).to.deep.equal([...chunks].sort());
        const after = rest.slice(chunks.length);
        expect(after[0]).to.equal(`POST /v1/chunks/arweave/${uploadId}/finalize -> 202`);
        // it polls every 2 s until it sees FINALIZED
        expect(after.slice(1)).to.not.be.empty;
        for (const poll of after.slice(1)) expect(poll).to.equal(`GET /v1/chunks/arweave/${uploadId}/status -> 200`);

        await expectAccepted(answer, payload);
      });
    }
  });

  describe('when the payer cannot pay (default free limit, unfunded wallet)', () => {
    let unfunded: TestService;
    let client: TurboAuthenticatedClient;
    before(async () => {
      unfunded = await startTestService();
      client = TurboFactory.authenticated({ privateKey: arweaveJwk, token: 'arweave', uploadServiceConfig: { url: unfunded.url } });
      // the SDK logs the refused chunk at error level; the assertions below say what happened
      TurboFactory.setLogLevel('none');
    });
    after(async () => {
      TurboFactory.setLogLevel('info');
      await unfunded.close();
    });

    /** turbo-sdk throws its FailedRequestError with the status and the service's plain-text message */
    async function refusal(run: () => Promise<unknown>) {
      const error = await run().then(
        () => undefined,
        (e: { status?: number; message: string }) => e,
      );
      return { status: error?.status, message: error?.message.split('\n').at(-1) };
    }

    it('surfaces 402 Insufficient balance on a single upload without retrying', async () => {
      const log = recordRequests(unfunded.server!);
      const outcome = await refusal(() => client.upload({ data: randomBytes(MiB), chunkingMode: 'disabled' }));
      log.stop();
      expect(outcome).to.deep.equal({ status: 402, message: 'Failed request (Status 402): Insufficient balance' });
      expect(log.entries).to.deep.equal(['POST /v1/tx/arweave -> 402']);
    });

    it('surfaces 402 Insufficient balance on the header chunk of a multi-part upload and stops there', async () => {
      const log = recordRequests(unfunded.server!);
      const outcome = await refusal(() => client.upload({ data: randomBytes(MiB), chunkingMode: 'force' }));
      log.stop();
      expect(outcome).to.deep.equal({ status: 402, message: 'Failed request (Status 402): Insufficient balance' });
      const uploadId = log.entries[1]?.split('/')[4];
      expect(log.entries).to.deep.equal([`GET /v1/chunks/arweave/-1/-1?chunkSize=${TURBO_CHUNK} -> 200`, `POST /v1/chunks/arweave/${uploadId}/0 -> 402`]);
    });
  });
});

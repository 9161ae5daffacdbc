import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { TurboFactory, type TurboAuthenticatedClient } from '@ardrive/turbo-sdk';
import { Uploader } from '@irys/upload';
import { Ethereum } from '@irys/upload-ethereum';
import { Approval } from '@irys/upload-core';
import { startTestService, type TestService } from '../support/testService.js';
import { arweaveJwk, asBody, signedItem, signers } from '../support/items.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import { recordRequests, type RequestLog } from './support/observe.js';
import { createUpload, postChunks } from '../support/multipart.js';

/**
 * Credit sharing by tagged upload, through the unmodified clients: turbo-sdk 1.43 `shareCredits` /
 * `revokeCredits` (lib/esm/common/upload.js: tags `x-approve-payment`, `x-amount`, `x-expires-seconds`,
 * `x-delete-payment-approval`; it reads `createdApproval` / `revokedApprovals` from the upload's answer)
 * and Irys `Approval.createApproval` / `revokeApproval` (@irys/upload-core approval.js; Irys-xyz/arweave-js-sdk
 * src/common/approval.ts at 985ba09: `x-irys-approve-payment`, `x-expire-seconds`) with its `paidBy` upload
 * option (header `x-irys-paid-by`, src/common/types.ts there).
 */
const FREE = 4096;
const RATE = 10n;
const meta = { correlationId: 'test' };
type Irys = Awaited<ReturnType<ReturnType<typeof Uploader>['build']>>;

const addressOfJwk = (jwk: { n: string }) => createHash('sha256').update(Buffer.from(jwk.n, 'base64url')).digest('base64url');

async function credit(service: TestService, address: string, winc: bigint) {
  const { position } = await service.accounts.execute(
    { type: 'Credit', data: { address, winc, creditId: `${address}:${winc}:${Date.now()}`, now: Date.now() } },
    meta,
  );
  await service.projections.waitFor(position!, 5000);
}

describe('credit sharing by tagged upload through the real clients', function () {
  this.timeout(60_000);
  let service: TestService;
  let requests: RequestLog;
  let turbo: TurboAuthenticatedClient;
  const payer = addressOfJwk(arweaveJwk);

  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE) });
    requests = recordRequests(service.server!);
    turbo = TurboFactory.authenticated({
      privateKey: arweaveJwk,
      token: 'arweave',
      uploadServiceConfig: { url: service.url },
      paymentServiceConfig: { url: service.url },
    });
  });
  beforeEach(() => requests.clear());
  after(async () => {
    requests.stop();
    await service.close();
  });

  it("turbo-sdk shareCredits grants the approval (createdApproval in the reference shape), in the approved balance's receivedApprovals", async () => {
    const taker = 'taker'.padEnd(43, 'A');
    const before = Date.now();
    const created = await turbo.shareCredits({ approvedAddress: taker, approvedWincAmount: 12_345, expiresBySeconds: 3600 });
    expect(requests.entries).to.deep.equal(['POST /v1/tx/arweave -> 200']);
    const { approvalDataItemId, creationDate, expirationDate, ...rest } = created as unknown as Record<string, string>;
    expect(rest).to.deep.equal({ approvedAddress: taker, payingAddress: payer, approvedWincAmount: '12345', usedWincAmount: '0' });
    expect(approvalDataItemId).to.match(/^[A-Za-z0-9_-]{43}$/);
    const created_ = Date.parse(creationDate!);
    expect(created_).to.be.within(before, Date.now());
    expect(Date.parse(expirationDate!)).to.equal(created_ + 3600 * 1000);
    const balance = await turbo.getBalance(taker);
    expect(balance.receivedApprovals).to.deep.equal([{ payingAddress: payer, approvedAddress: taker, remainingWinc: '12345', expirationDate }]);
  });

  it('turbo-sdk revokeCredits revokes it (revokedApprovals) and the approval is gone from both accounts', async () => {
    const taker = 'other'.padEnd(42, 'B') + 'A';
    await turbo.shareCredits({ approvedAddress: taker, approvedWincAmount: 500 });
    requests.clear();
    const revoked = await turbo.revokeCredits({ revokedAddress: taker });
    expect(requests.entries).to.deep.equal(['POST /v1/tx/arweave -> 200']);
    expect(revoked).to.have.length(1);
    const { approvalDataItemId, creationDate, ...rest } = revoked[0] as unknown as Record<string, string>;
    expect(rest).to.deep.equal({ approvedAddress: taker, payingAddress: payer, approvedWincAmount: '500', usedWincAmount: '0' });
    expect(approvalDataItemId).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(creationDate).to.be.a('string');
    expect((await turbo.getBalance(taker)).receivedApprovals).to.deep.equal([]);
    expect((await turbo.getCreditShareApprovals({})).givenApprovals.map((a) => a.approvedAddress)).to.not.include(taker);
  });

  it('a revocation of no approval is refused before anything is stored: Invalid request, and turbo-sdk surfaces it', async () => {
    TurboFactory.setLogLevel('none');
    try {
      const error = await turbo.revokeCredits({ revokedAddress: 'nobody'.padEnd(43, 'C') }).then(
        () => undefined,
        (e: unknown) => e as { status?: number; message: string },
      );
      expect(error?.message).to.include('Invalid request');
    } finally {
      TurboFactory.setLogLevel('info');
    }
  });

  it('a re-sent approval item answers 202 with the approval as it stands, and grants nothing again', async () => {
    const taker = 'again'.padEnd(42, 'R') + 'A';
    await credit(service, payer, 10_000n);
    const item = await signedItem(signers.arweave(), randomBytes(16), [
      { name: 'x-approve-payment', value: taker },
      { name: 'x-amount', value: '5000' },
    ]);
    const post = () => fetch(`${service.url}/v1/tx/arweave`, { method: 'POST', body: asBody(item.getRaw()) });
    const first = await post();
    expect(first.status).to.equal(200);
    const granted = (await first.json()).createdApproval;
    // the taker spends 1200 winc through it
    const data = { address: payer, reservationId: 'spend-1', winc: 1200n, dataItemId: 'spent-item', onBehalfOf: taker, now: Date.now() };
    await service.accounts.execute({ type: 'Reserve', data }, meta);
    await service.accounts.execute({ type: 'Settle', data: { address: payer, reservationId: 'spend-1', now: Date.now() } }, meta);
    const again = await post();
    expect([again.status, again.statusText]).to.deep.equal([202, 'Data Item Exists']);
    expect((await again.json()).createdApproval).to.deep.equal({ ...granted, usedWincAmount: '1200' });
    expect((await service.accounts.read(payer)).approvals.get(taker)?.remaining).to.equal(3800n);
  });

  it('a re-sent revoke item answers 202 with the approvals it revoked (revokedApprovals), and revokes nothing again', async () => {
    const taker = 'unsay'.padEnd(42, 'R') + 'A';
    await turbo.shareCredits({ approvedAddress: taker, approvedWincAmount: 700 });
    const item = await signedItem(signers.arweave(), randomBytes(16), [{ name: 'x-delete-payment-approval', value: taker }]);
    const post = () => fetch(`${service.url}/v1/tx/arweave`, { method: 'POST', body: asBody(item.getRaw()) });
    const first = await post();
    expect(first.status).to.equal(200);
    const { revokedApprovals } = (await first.json()) as { revokedApprovals: Record<string, string>[] };
    expect(
      revokedApprovals.map(({ approvedAddress, approvedWincAmount, usedWincAmount }) => ({ approvedAddress, approvedWincAmount, usedWincAmount })),
    ).to.deep.equal([{ approvedAddress: taker, approvedWincAmount: '700', usedWincAmount: '0' }]);
    // granted again since: the re-sent revoke item leaves the new approval standing
    const granted = await turbo.shareCredits({ approvedAddress: taker, approvedWincAmount: 800 });
    const again = await post();
    expect([again.status, again.statusText]).to.deep.equal([202, 'Data Item Exists']);
    expect(((await again.json()) as { revokedApprovals: unknown }).revokedApprovals).to.deep.equal(revokedApprovals);
    expect((await service.accounts.read(payer)).approvals.get(taker)?.approvalDataItemId).to.equal(granted.approvalDataItemId);
  });

  it('turbo-sdk revokeCredits whose approval another revocation took first (after the check) gets an empty revokedApprovals, not an error', async () => {
    const taker = 'raced'.padEnd(43, 'A');
    await turbo.shareCredits({ approvedAddress: taker, approvedWincAmount: 300 });
    // the service's own account repository: the operator's revocation lands between the item's check and its own
    const execute = service.accounts.execute.bind(service.accounts);
    let raced = false;
    service.accounts.execute = (async (command, metadata, ...rest) => {
      if (command.type === 'Revoke' && command.data.revokeDataItemId !== undefined && !raced) {
        raced = true;
        await execute({ type: 'Revoke', data: { address: payer, approvedAddress: taker, now: Date.now() } }, metadata);
      }
      return execute(command, metadata, ...rest);
    }) as typeof service.accounts.execute;
    try {
      requests.clear();
      expect(await turbo.revokeCredits({ revokedAddress: taker })).to.deep.equal([]);
      expect([raced, requests.entries]).to.deep.equal([true, ['POST /v1/tx/arweave -> 200']]);
    } finally {
      service.accounts.execute = execute;
    }
  });

  it('a multi-part upload of an x-approve-payment item (turbo-sdk chunkingMode force) answers createdApproval in the status receipt turbo-sdk returns', async () => {
    const taker = 'parts'.padEnd(43, 'A');
    const tags = [
      { name: 'x-approve-payment', value: taker },
      { name: 'x-amount', value: '4321' },
    ];
    const answer = (await turbo.upload({ data: randomBytes(64), dataItemOpts: { tags }, chunkingMode: 'force' })) as unknown as {
      id: string;
      createdApproval?: Record<string, string>;
    };
    expect(requests.entries.at(-1)).to.match(/^GET \/v1\/chunks\/arweave\/[^/]+\/status -> 200$/);
    expect(answer.createdApproval).to.deep.include({
      approvalDataItemId: answer.id,
      approvedAddress: taker,
      payingAddress: payer,
      approvedWincAmount: '4321',
      usedWincAmount: '0',
    });
    expect((await service.accounts.read(payer)).approvals.get(taker)?.remaining).to.equal(4321n);
  });

  it('a synchronous multi-part finalize of a revoke item answers revokedApprovals beside the receipt, the same when finalized again', async () => {
    const taker = 'sync-'.padEnd(43, 'A');
    await turbo.shareCredits({ approvedAddress: taker, approvedWincAmount: 600 });
    // the item is past the free limit: its signer pays for it
    await credit(service, payer, 100_000n);
    const item = await signedItem(signers.arweave(), randomBytes(3000), [{ name: 'x-delete-payment-approval', value: taker }]);
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, item.getRaw(), 2500);
    const finalize = () => fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
    const first = await finalize();
    expect(first.status).to.equal(200);
    const body = (await first.json()) as { id: string; data: { id: string; revokedApprovals: Record<string, string>[] } };
    expect([body.id, body.data.id]).to.deep.equal([item.id, item.id]);
    expect(body.data.revokedApprovals.map((a) => [a.approvedAddress, a.approvedWincAmount])).to.deep.equal([[taker, '600']]);
    expect(await (await finalize()).json()).to.deep.equal(body);
    const status = (await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json()) as { receipt: unknown };
    expect(status.receipt).to.deep.equal(body.data);
    expect((await service.accounts.read(payer)).approvals.has(taker)).to.equal(false);
  });

  it('an approval whose append failed after the item was accepted is granted when the item is sent again', async () => {
    const taker = 'heals'.padEnd(43, 'A');
    const item = await signedItem(signers.arweave(), randomBytes(16), [
      { name: 'x-approve-payment', value: taker },
      { name: 'x-amount', value: '900' },
    ]);
    const post = () => fetch(`${service.url}/v1/tx/arweave`, { method: 'POST', body: asBody(item.getRaw()) });
    // the service's own account repository: its next Approve fails as a store that went away would
    const execute = service.accounts.execute.bind(service.accounts);
    let failed = 0;
    service.accounts.execute = (async (command, metadata, ...rest) => {
      if (command.type === 'Approve' && failed++ === 0) throw new ServiceUnavailable('event store down');
      return execute(command, metadata, ...rest);
    }) as typeof service.accounts.execute;
    try {
      const first = await post();
      expect([first.status, await first.text()]).to.deep.equal([503, 'Service unavailable']);
      expect((await fetch(`${service.url}/tx/${item.id}/status`)).status).to.equal(200);
      expect((await service.accounts.read(payer)).approvals.has(taker)).to.equal(false);
      const again = await post();
      expect(again.status).to.equal(202);
      expect((await again.json()).createdApproval).to.deep.include({ approvalDataItemId: item.id, approvedAddress: taker, approvedWincAmount: '900' });
      expect((await service.accounts.read(payer)).approvals.get(taker)?.remaining).to.equal(900n);
    } finally {
      service.accounts.execute = execute;
    }
  });

  describe('bad tags answer the contract errors and store nothing', () => {
    for (const [what, amount, status, message] of [
      ['an amount that is not an integer', '1.5', 400, 'Invalid request'],
      ['a negative amount', '-5', 400, 'Invalid request'],
      ['a zero amount', '0', 400, 'Invalid request'],
      ['a huge amount', '9'.repeat(31), 400, 'Invalid request'],
    ] as const) {
      it(`${what} (x-amount: ${amount.slice(0, 12)})`, async () => {
        const { answer, id } = await uploadTagged([
          { name: 'x-approve-payment', value: 'taker'.padEnd(43, 'D') },
          { name: 'x-amount', value: amount },
        ]);
        expect([answer.status, await answer.text()]).to.deep.equal([status, message]);
        expect((await fetch(`${service.url}/tx/${id}/status`)).status).to.equal(404);
      });
    }
    for (const [what, tags, message] of [
      ['no x-amount', [{ name: 'x-approve-payment', value: 'taker'.padEnd(43, 'E') }], 'Invalid request'],
      [
        'an approved address of no account',
        [
          { name: 'x-approve-payment', value: 'not-an-address' },
          { name: 'x-amount', value: '5' },
        ],
        'Invalid address',
      ],
      [
        'a malformed 0x address',
        [
          { name: 'x-approve-payment', value: '0x123' },
          { name: 'x-amount', value: '5' },
        ],
        'Invalid address',
      ],
      [
        'a self-approval',
        [
          { name: 'x-approve-payment', value: payer },
          { name: 'x-amount', value: '5' },
        ],
        'Invalid request',
      ],
      [
        'an expiry that is not a positive integer',
        [
          { name: 'x-approve-payment', value: 'taker'.padEnd(43, 'F') },
          { name: 'x-amount', value: '5' },
          { name: 'x-expires-seconds', value: '-1' },
        ],
        'Invalid request',
      ],
    ] as const) {
      it(what, async () => {
        const { answer, id } = await uploadTagged(tags);
        expect([answer.status, await answer.text()]).to.deep.equal([400, message]);
        expect((await fetch(`${service.url}/tx/${id}/status`)).status).to.equal(404);
      });
    }
  });

  /** a small item signed by the turbo wallet, with these tags, posted as turbo-sdk posts one */
  async function uploadTagged(tags: readonly { name: string; value: string }[]) {
    const item = await signedItem(signers.arweave(), randomBytes(16), [...tags]);
    const answer = await fetch(`${service.url}/v1/tx/arweave`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: asBody(item.getRaw()),
    });
    return { answer, id: item.id };
  }

  it("Irys's GET /account/approval refuses malformed addresses and unknown tokens with the contract's errors", async () => {
    const eth = '0x' + '12'.repeat(20);
    for (const [query, answer] of [
      [`payingAddress=nope&approvedAddress=${eth}&token=ethereum`, [400, 'Invalid address']],
      [`payingAddress=${eth}&token=ethereum`, [400, 'Invalid address']],
      [`payingAddress=${eth}&approvedAddress=${payer}&token=ethereum`, [400, 'Invalid address']],
      [`payingAddress=${eth}&approvedAddress=${eth}&token=dogecoin`, [400, 'Invalid token']],
    ] as const) {
      const res = await fetch(`${service.url}/account/approval?${query}`);
      expect([res.status, await res.text()], query).to.deep.equal(answer);
    }
  });

  describe('Irys (ethereum): createApproval, then the approved wallet uploads with paidBy (x-irys-paid-by)', () => {
    let owner: Irys;
    let approved: Irys;
    before(async () => {
      owner = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(service.url);
      approved = await Uploader(Ethereum).withWallet(randomBytes(32).toString('hex')).bundlerUrl(service.url);
    });

    it('the approval is granted by the x-irys-approve-payment item and the approved upload is charged to the payer', async () => {
      const payerAddress = toChecksumAddress(owner.address!);
      const approvedAddress = toChecksumAddress(approved.address!);
      await credit(service, payerAddress, 100_000n);
      const granted = await new Approval(owner as never).createApproval({ approvedAddress: approved.address!, amount: '60000', expiresInSeconds: 600 });
      expect((granted as unknown as { createdApproval: object }).createdApproval).to.include({
        approvedAddress,
        payingAddress: payerAddress,
        approvedWincAmount: '60000',
      });
      const fromOwner = await new Approval(approved as never).getApprovedBalanceFrom(owner.address!);
      expect(fromOwner.amount).to.equal('60000');
      expect(Number(fromOwner.expiresBy)).to.equal(
        Date.parse((granted as unknown as { createdApproval: { expirationDate: string } }).createdApproval.expirationDate),
      );
      expect(requests.entries.at(-1)).to.match(/^GET \/account\/approval\?payingAddress=0x[0-9a-f]{40}&token=ethereum&approvedAddress=0x[0-9a-f]{40} -> 200$/);
      expect((await new Approval(owner as never).getApprovedBalanceFrom(approved.address!)).amount).to.equal('0');
      const ownerBalance = (await owner.getBalance()).toString(10);
      expect(ownerBalance).to.equal('100000');
      requests.clear();
      const payload = randomBytes(FREE + 500);
      const receipt = await approved.upload(payload, { upload: { paidBy: owner.address! } });
      expect(requests.entries).to.deep.equal(['POST /tx/ethereum -> 200']);
      const status = await (await fetch(`${service.url}/tx/${receipt.id}/status`)).json();
      const price = BigInt(status.rawContentLength) * RATE;
      expect(status.winc).to.equal(price.toString());
      expect((await owner.getBalance()).toString(10)).to.equal((100_000n - price).toString());
      expect((await approved.getBalance()).toString(10)).to.equal('0');
      const body = await (await fetch(`${service.url}/account/balance/ethereum?address=${approvedAddress}`)).json();
      expect(body.receivedApprovals).to.have.length(1);
      expect(body.receivedApprovals[0]).to.include({ payingAddress: payerAddress, approvedAddress, remainingWinc: (60_000n - price).toString() });

      await new Approval(owner as never).revokeApproval({ approvedAddress: approved.address! });
      const refused = await approved.upload(randomBytes(FREE + 500), { upload: { paidBy: owner.address! } }).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
      expect(refused).to.include('402');
    });
  });
});

import { expect } from 'chai';
import { summaryText } from '../../src/audit/report.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import type { TestService } from '../support/testService.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { auditOf, credit, dropPlan, ethAddress, meta, planQueued, runScript, startPricedService, upload, uploaded } from './support.js';

describe('npm run audit on a clean service', function () {
  this.timeout(60_000);
  let service: TestService;
  let events: number;

  before(async () => {
    service = await startPricedService();
    const owner = signers.ethereum();
    const free = await itemOfSize(signers.arweave(), 1200);
    const solana = await signedItem(signers.solana(), 'a small free item', [{ name: 'Content-Type', value: 'text/plain' }]);
    const paid = await itemOfSize(owner, 5000);
    const paidByPayer = await itemOfSize(owner, 2000);
    const nested = await bundleItem(
      signers.ethereum(),
      await bundleBytes([await signedItem(signers.solana(), 'inner'), await signedItem(signers.ethereum(), 'inner 2')]),
    );
    const chunked = await itemOfSize(owner, 6000);

    const ownerAddress = ethAddress(paid);
    const payer = toChecksumAddress('0x' + '7'.repeat(40));
    await credit(service, ownerAddress, 200_000n);
    await credit(service, payer, 100_000n);
    const { position } = await service.accounts.execute(
      { type: 'Approve', data: { address: payer, approvedAddress: ownerAddress, winc: 25_000n, now: Date.now() } },
      meta,
    );
    await service.projections.waitFor(position!, 5000);

    await uploaded(service, free);
    await uploaded(service, solana);
    await uploaded(service, paid);
    await uploaded(service, paidByPayer, { 'x-paid-by': payer });
    await uploaded(service, nested);
    await nestedIndexed(service, nested.id);
    expect(await upload(service, free)).to.equal(202);
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, chunked.getRaw(), 2500);
    expect((await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);

    // a bundle dropped, its items planned again: never two live bundles at once
    const [first] = await planQueued(service);
    await dropPlan(service, first!);
    expect(await planQueued(service)).to.have.length(1);

    events = 0;
    for await (const _ of service.eventStore.readAll()) events += 1;
  });
  after(() => service?.close());

  it('finds nothing and counts what it checked: items of several kinds, a multi-part upload, payments, bundles', async () => {
    const { findings, summary } = await auditOf(service, { blobGraceMs: 0 });
    expect(findings).to.deep.equal([]);
    expect(summary).to.deep.equal({
      head: BigInt(events),
      checked: {
        events,
        itemBlobs: 6,
        retiredItemBlobs: 0,
        // one per item, and the one the multi-part upload handed out again
        receipts: 7,
        accounts: 2,
        accountsNotProjectedYet: 0,
        bundlePlans: 2,
        plannedItems: 12,
        paidItems: 3,
        awaitingSettlement: 0,
        // the items' blobs: the multi-part upload's bytes became its item's
        blobsListed: 6,
        blobsNotJudged: 0,
        topUps: 0,
        topUpsNotChecked: 0,
        refunds: 0,
        // no x402 payments in this story (test/x402/facilitator.test.ts and test/crash/x402Settlement.test.ts audit them)
        x402Payments: 0,
        x402NotChecked: 0,
        x402InFlight: 0,
      },
      findings: 0,
      receiptKeyChecked: true,
      blobGraceMs: 0,
    });
  });

  it('exits 0 from the command line beside the running service, with the summary (or JSON) on stdout', async () => {
    const env = { DATA_DIR: service.dataDir, WALLET_FILE: SERVICE_WALLET_FILE };
    const { summary } = await auditOf(service, { blobGraceMs: 0 });
    const text = await runScript('audit', ['--blob-grace-minutes', '0'], env);
    expect(text).to.deep.equal({ code: 0, stdout: `${summaryText(summary)}\n`, stderr: '' });

    const json = await runScript('audit', ['--json', '--concurrency', '2', '--blob-grace-minutes', '0'], env);
    expect(json.code).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal({
      findings: [],
      head: String(events),
      checked: summary.checked,
      findingCount: 0,
      receiptKeyChecked: true,
      blobGraceMs: 0,
    });
  });
});

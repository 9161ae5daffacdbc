import { expect } from 'chai';
import type { Finding } from '../../src/audit/types.js';
import type { TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { auditOf, credit, ethAddress, planQueued, startPricedService, uploaded } from './support.js';

describe('npm run audit beside a busy service', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startPricedService();
  });
  after(() => service?.close());

  it('finds nothing while paid uploads and bundle plans are being written (it audits up to the head it started at)', async () => {
    const signer = signers.ethereum();
    const items = await Promise.all(Array.from({ length: 40 }, () => itemOfSize(signer, 2000)));
    await credit(service, ethAddress(items[0]!), 10n ** 9n);
    const uploads = Promise.all(items.map((item) => uploaded(service, item)));
    const findings: Finding[][] = [];
    for (let i = 0; i < 5; i += 1) {
      findings.push((await auditOf(service)).findings);
      await planQueued(service);
    }
    await uploads;
    await planQueued(service);
    const last = await auditOf(service);
    expect([...findings, last.findings]).to.deep.equal(Array(6).fill([]));
    expect(last.summary.checked).to.deep.include({ itemBlobs: 40, paidItems: 40, plannedItems: 40, awaitingSettlement: 0 });
  });
});

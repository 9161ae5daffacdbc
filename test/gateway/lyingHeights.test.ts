import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { REORG_TOLERANCE_BLOCKS } from '../../src/adapters/gateway/heightGuard.js';
import { signedItem, signers, asBody } from '../support/items.js';
import { startTestService, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { eventually } from '../support/eventually.js';

describe('receipts while the gateway lies about the block height', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ BLOCK_HEIGHT_REFRESH_MS: '1000' });
  });
  after(() => service.close());

  const upload = async (label: string) => {
    const item = await signedItem(signers.ethereum(), label);
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as { id: string; deadlineHeight: number } | undefined, id: item.id };
  };
  const savedHeight = async () => (JSON.parse(await readFile(join(service.dataDir, 'block-height.json'), 'utf8')) as { height: number }).height;
  /** the service asked the gateway twice more: the first of those answers has been judged */
  const refreshed = async () => {
    const seen = service.gateway.requests();
    await eventually(() => service.gateway.requests() >= seen + 2, Boolean, 'two more block height refreshes');
  };

  const lies: [string, number][] = [
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    [`a height ${REORG_TOLERANCE_BLOCKS + 1} blocks lower`, TEST_BLOCK_HEIGHT - REORG_TOLERANCE_BLOCKS - 1],
    ['a jump of 10,000 blocks', TEST_BLOCK_HEIGHT + 10_000],
  ];
  for (const [what, lie] of lies) {
    it(`signs receipts with the last good height, and does not save the lie, when the gateway answers ${what}`, async () => {
      service.gateway.setHeight(lie);
      await refreshed();
      const answer = await upload(`uploaded while the gateway answers ${lie}`);
      expect(answer.status).to.equal(200);
      expect(answer.body?.id).to.equal(answer.id);
      expect(answer.body?.deadlineHeight).to.equal(TEST_BLOCK_HEIGHT + 200);
      expect(await savedHeight()).to.equal(TEST_BLOCK_HEIGHT);
    });
  }

  it('takes the height again once the gateway answers a believable one', async () => {
    service.gateway.setHeight(TEST_BLOCK_HEIGHT + 3);
    await refreshed();
    const answer = await upload('uploaded once the gateway tells the truth again');
    expect(answer.status).to.equal(200);
    expect(answer.body?.deadlineHeight).to.equal(TEST_BLOCK_HEIGHT + 3 + 200);
    expect(await savedHeight()).to.equal(TEST_BLOCK_HEIGHT + 3);
  });
});

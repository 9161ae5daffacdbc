import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
const RULES = [{ name: 'held-app', match: { tags: [{ name: 'App-Name', value: 'Held-.*' }] }, reason: 'held by a rule' }];

/**
 * How many items are held now, over real HTTP: `/metrics`' `data_items_held` and the dashboard summary's
 * `uploads.heldItems`, from the quarantine-stats read model, counting holds by a rule at acceptance and
 * by the operator, and releases.
 */
describe('items held: /metrics and the dashboard', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ QUARANTINE_RULES: JSON.stringify(RULES), ADMIN_TOKEN });
  });
  after(() => service.close());

  const admin = (method: 'PUT' | 'DELETE', id: string) =>
    fetch(`${service.url}/admin/items/${id}/quarantine`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'ops', reason: 'abuse report' }),
    });
  const held = async () => {
    const metrics = (await (await fetch(`${service.url}/metrics`)).text()).match(/^data_items_held (\S+)$/m)?.[1];
    const summary = (await (await fetch(`${service.url}/dashboard/api/summary`)).json()) as { uploads: { heldItems: number } };
    return { metrics, dashboard: summary.uploads.heldItems };
  };

  it('counts the items held by a rule and by the operator, and not those released', async () => {
    expect(await held()).to.deep.equal({ metrics: '0', dashboard: 0 });
    const ruled = await signedItem(signers.arweave(), 'held by a rule', [{ name: 'App-Name', value: 'Held-here' }]);
    const plain = await signedItem(signers.arweave(), 'held by the operator');
    const other = await signedItem(signers.ethereum(), 'never held');
    for (const item of [ruled, plain, other]) expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    expect(await held()).to.deep.equal({ metrics: '1', dashboard: 1 });
    expect((await admin('PUT', plain.id)).status).to.equal(200);
    // held again: nothing recorded, nothing counted twice
    expect((await admin('PUT', plain.id)).status).to.equal(200);
    expect(await held()).to.deep.equal({ metrics: '2', dashboard: 2 });
    expect((await admin('DELETE', ruled.id)).status).to.equal(200);
    expect((await admin('DELETE', ruled.id)).status).to.equal(200);
    expect(await held()).to.deep.equal({ metrics: '1', dashboard: 1 });
  });
});

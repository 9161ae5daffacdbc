import { expect } from 'chai';
import { creditedOnly } from '../support/balances.js';
import { alice, bob, eth, ethLower, startAdminApp, T0, type AdminApp } from './support.js';

describe('admin API: payment approvals', () => {
  let app: AdminApp;
  beforeEach(async () => {
    app = await startAdminApp();
    await app.admin(`/admin/accounts/${alice}/credit`, { method: 'POST', body: { winc: '1000' } });
  });
  afterEach(() => app.close());

  const approve = (payer: string, body: unknown) => app.admin(`/admin/accounts/${payer}/approvals`, { method: 'POST', body });
  const revoke = (payer: string, owner: string) => app.admin(`/admin/accounts/${payer}/approvals/${owner}`, { method: 'DELETE' });

  it('approves an owner and answers the payer balance listing the approval', async () => {
    app.clock.now = T0 + 1;
    const res = await approve(alice, { approvedAddress: ethLower, winc: '300', expiresAt: '2030-02-01T00:00:00+01:00' });
    expect(res.status).to.equal(200);
    const expected = {
      ...creditedOnly(alice, '1000'),
      givenApprovals: [{ approvedAddress: eth, remainingWinc: '300', expiresAt: '2030-01-31T23:00:00.000Z' }],
    };
    expect(await res.json()).to.deep.equal(expected);
    expect(await (await app.admin(`/admin/accounts/${alice}`)).json()).to.deep.equal(expected);
  });

  it('replaces an earlier approval of the same owner', async () => {
    app.clock.now = T0 + 1;
    await approve(alice, { approvedAddress: bob, winc: '300' });
    app.clock.now = T0 + 2;
    const res = await approve(alice, { approvedAddress: bob, winc: '50' });
    expect((await res.json()).givenApprovals).to.deep.equal([{ approvedAddress: bob, remainingWinc: '50' }]);
  });

  it('revokes an approval with DELETE, and a second revoke still answers 200 with the same balance', async () => {
    app.clock.now = T0 + 1;
    await approve(alice, { approvedAddress: bob, winc: '300' });
    app.clock.now = T0 + 2;
    const res = await revoke(alice, bob);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal(creditedOnly(alice, '1000'));
    const again = await revoke(alice, bob);
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal(creditedOnly(alice, '1000'));
    const history = await (await app.admin(`/admin/accounts/${alice}/history`)).json();
    expect(history.events.map((e: { type: string }) => e.type)).to.deep.equal(['AccountCredited', 'PaymentApproved', 'PaymentApprovalRevoked']);
  });
});

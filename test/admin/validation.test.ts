import { expect } from 'chai';
import { creditedOnly } from '../support/balances.js';
import { alice, bob, expectPlainError, startAdminApp, T0, type AdminApp } from './support.js';

describe('admin API: malformed requests', () => {
  let app: AdminApp;
  before(async () => {
    app = await startAdminApp();
  });
  after(() => app.close());

  const credit = (address: string, body: unknown) => app.admin(`/admin/accounts/${address}/credit`, { method: 'POST', body });
  const approve = (body: unknown) => app.admin(`/admin/accounts/${alice}/approvals`, { method: 'POST', body });

  it('answers 400 Invalid address for a bad address on every route', async () => {
    const bad = 'not-an-address';
    await expectPlainError(await credit(bad, { winc: '1' }), 400, 'Invalid address');
    await expectPlainError(await app.admin(`/admin/accounts/${bad}`), 400, 'Invalid address');
    await expectPlainError(await app.admin(`/admin/accounts/${bad}/history`), 400, 'Invalid address');
    await expectPlainError(await approve({ approvedAddress: bad, winc: '1' }), 400, 'Invalid address');
    await expectPlainError(await app.admin(`/admin/accounts/${bad}/approvals/${bob}`, { method: 'DELETE' }), 400, 'Invalid address');
    await expectPlainError(await app.admin(`/admin/accounts/${alice}/approvals/${bad}`, { method: 'DELETE' }), 400, 'Invalid address');
  });

  it('answers 400 Invalid request for an amount that is not a positive integer string, and credits nothing', async () => {
    for (const winc of ['0', '-5', '1.5', 'abc', '', '01', ' 1', '1e3', 5, null]) {
      await expectPlainError(await credit(alice, { winc }), 400, 'Invalid request');
      await expectPlainError(await approve({ approvedAddress: bob, winc }), 400, 'Invalid request');
    }
    expect(await (await app.admin(`/admin/accounts/${alice}`)).json()).to.deep.equal(creditedOnly(alice, '0'));
  });

  it('answers 400 Invalid request for malformed JSON, a missing body, a non-object, or an unknown field', async () => {
    await expectPlainError(await credit(alice, '{"winc": "1"'), 400, 'Invalid request');
    await expectPlainError(await app.admin(`/admin/accounts/${alice}/credit`, { method: 'POST' }), 400, 'Invalid request');
    await expectPlainError(await credit(alice, '"1000"'), 400, 'Invalid request');
    await expectPlainError(await credit(alice, { winc: '1', amount: '1' }), 400, 'Invalid request');
    await expectPlainError(await approve({ approvedAddress: bob, winc: '1', expires: '2031-01-01T00:00:00Z' }), 400, 'Invalid request');
  });

  it('answers 400 Invalid request for a body over 16 kB', async () => {
    await expectPlainError(await credit(alice, { winc: '1', reason: 'x'.repeat(17 * 1024) }), 400, 'Invalid request');
  });

  it('answers 400 Invalid request for a bad credit id or reason', async () => {
    for (const body of [{ creditId: '' }, { creditId: 'has space' }, { creditId: 'x'.repeat(129) }, { reason: '' }, { reason: 'x'.repeat(501) }]) {
      await expectPlainError(await credit(alice, { winc: '1', ...body }), 400, 'Invalid request');
    }
  });

  it('answers 400 Invalid request for a self-approval, an expiry without offset, or one already past', async () => {
    app.clock.now = T0;
    await expectPlainError(await approve({ approvedAddress: alice, winc: '1' }), 400, 'Invalid request');
    await expectPlainError(await approve({ approvedAddress: bob, winc: '1', expiresAt: '2031-01-01T00:00:00' }), 400, 'Invalid request');
    await expectPlainError(await approve({ approvedAddress: bob, winc: '1', expiresAt: '2031-01-01' }), 400, 'Invalid request');
    await expectPlainError(await approve({ approvedAddress: bob, winc: '1', expiresAt: new Date(T0).toISOString() }), 400, 'Invalid request');
    expect((await (await app.admin(`/admin/accounts/${alice}/history`)).json()).events).to.deep.equal([]);
  });

  it('answers 404 Not Found for an unknown admin route with the token', async () => {
    await expectPlainError(await app.admin('/admin/accounts'), 404, 'Not Found');
  });
});

import { expect } from 'chai';
import { alice, bob, startAdminApp, T0, type AdminApp } from './support.js';

describe('admin API: account history', () => {
  let app: AdminApp;
  before(async () => {
    app = await startAdminApp();
  });
  after(() => app.close());

  it('lists the stream in order with revisions and positions as decimal strings, data and metadata as stored', async () => {
    const headers = { 'x-request-id': 'req-1', 'user-agent': 'ops-console/1' };
    app.clock.now = T0;
    await app.admin(`/admin/accounts/${alice}/credit`, {
      method: 'POST',
      body: { winc: '1000', creditId: 'invoice-7', reason: 'prepaid' },
      headers,
    });
    app.clock.now = T0 + 1000;
    await app.admin(`/admin/accounts/${alice}/approvals`, {
      method: 'POST',
      body: { approvedAddress: bob, winc: '250', expiresAt: '2030-06-01T00:00:00Z' },
      headers: { ...headers, 'x-request-id': 'req-2' },
    });
    app.clock.now = T0 + 2000;
    await app.admin(`/v1/admin/accounts/${alice}/approvals/${bob}`, { method: 'DELETE', headers: { ...headers, 'x-request-id': 'req-3' } });

    const res = await app.admin(`/admin/accounts/${alice}/history`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const body = await res.json();
    const metadata = (correlationId: string, schemaVersion = 1) => ({
      correlationId,
      causationId: 'admin',
      clientAddress: '127.0.0.1',
      userAgent: 'ops-console/1',
      schemaVersion,
    });
    expect(body.address).to.equal(alice);
    expect(body.events.map(({ id: _id, ...rest }: { id: string }) => rest)).to.deep.equal([
      {
        revision: '0',
        position: '1',
        type: 'AccountCredited',
        data: { address: alice, winc: '1000', creditId: 'invoice-7', reason: 'prepaid', timestamp: T0 },
        // AccountCredited is written in its second shape (upcasters.ts)
        metadata: metadata('req-1', 2),
        created: '2030-01-01T00:00:00.000Z',
      },
      {
        revision: '1',
        position: '2',
        type: 'PaymentApproved',
        data: { address: alice, approvedAddress: bob, winc: '250', expiresAt: Date.parse('2030-06-01T00:00:00Z'), timestamp: T0 + 1000 },
        metadata: metadata('req-2'),
        created: '2030-01-01T00:00:01.000Z',
      },
      {
        revision: '2',
        position: '3',
        type: 'PaymentApprovalRevoked',
        data: { address: alice, approvedAddress: bob, timestamp: T0 + 2000 },
        metadata: metadata('req-3'),
        created: '2030-01-01T00:00:02.000Z',
      },
    ]);
    for (const e of body.events) expect(e.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('answers an empty list for an account without events', async () => {
    const res = await app.admin(`/admin/accounts/${bob}/history`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ address: bob, events: [] });
  });
});

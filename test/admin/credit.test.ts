import { expect } from 'chai';
import { creditedOnly } from '../support/balances.js';
import { alice, eth, ethLower, startAdminApp, type AdminApp } from './support.js';

describe('admin API: credits', () => {
  let app: AdminApp;
  beforeEach(async () => {
    app = await startAdminApp();
  });
  afterEach(() => app.close());

  const credit = (address: string, body: unknown, prefix = '/admin') => app.admin(`${prefix}/accounts/${address}/credit`, { method: 'POST', body });

  it('credits an account and answers its balance with the credit id, as JSON', async () => {
    const res = await credit(alice, { winc: '1000', creditId: 'invoice-1' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(await res.json()).to.deep.equal({ ...creditedOnly(alice, '1000'), creditId: 'invoice-1' });
    const balance = await app.admin(`/admin/accounts/${alice}`);
    expect(balance.status).to.equal(200);
    expect(await balance.json()).to.deep.equal(creditedOnly(alice, '1000'));
  });

  it('adds credits up, under /admin and /v1/admin, in amounts beyond 2^64', async () => {
    const big = '123456789012345678901234567890';
    await credit(alice, { winc: big });
    const res = await credit(alice, { winc: '10' }, '/v1/admin');
    expect((await res.json()).winc).to.equal('123456789012345678901234567900');
    expect(await (await app.admin(`/v1/admin/accounts/${alice}`)).json()).to.deep.equal(creditedOnly(alice, '123456789012345678901234567900'));
  });

  it('credits the same creditId once, answering the same balance to the repeat', async () => {
    const first = await credit(alice, { winc: '700', creditId: 'payment:42' });
    const again = await credit(alice, { winc: '700', creditId: 'payment:42' });
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal(await first.json());
    await credit(alice, { winc: '5', creditId: 'payment:43' });
    await credit(alice, { winc: '700', creditId: 'payment:42' });
    expect(await (await app.admin(`/admin/accounts/${alice}`)).json()).to.deep.equal(creditedOnly(alice, '705'));
  });

  it('gives each credit without a creditId its own random id', async () => {
    const a = await (await credit(alice, { winc: '1' })).json();
    const b = await (await credit(alice, { winc: '1' })).json();
    expect(a.creditId).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.creditId).to.not.equal(a.creditId);
    expect(b.winc).to.equal('2');
  });

  it('keys an ethereum account by its EIP-55 address whatever the case given', async () => {
    const res = await credit(ethLower, { winc: '3', creditId: 'c' });
    expect(await res.json()).to.deep.equal({ ...creditedOnly(eth, '3'), creditId: 'c' });
    expect(await (await app.admin(`/admin/accounts/${eth}`)).json()).to.deep.equal(creditedOnly(eth, '3'));
  });

  it('answers a zero balance for an account never credited', async () => {
    expect(await (await app.admin(`/admin/accounts/${alice}`)).json()).to.deep.equal(creditedOnly(alice, '0'));
  });
});

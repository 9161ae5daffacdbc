import { expect } from 'chai';
import { ADMIN_TOKEN, alice, expectPlainError, startAdminApp, type AdminApp } from './support.js';

describe('admin API: bearer token', () => {
  let app: AdminApp;
  before(async () => {
    app = await startAdminApp();
  });
  after(() => app.close());

  const credit = (headers: Record<string, string>) =>
    fetch(`${app.url}/admin/accounts/${alice}/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ winc: '1000' }),
    });

  it('answers 401 Unauthorized with WWW-Authenticate: Bearer without an Authorization header', async () => {
    const res = await credit({});
    expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    await expectPlainError(res, 401, 'Unauthorized');
  });

  it('answers 401 Unauthorized for a wrong token, a prefix of it, a longer one, and another scheme', async () => {
    for (const authorization of [
      'Bearer wrong-token-wrong-token-wrong',
      `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
      `Bearer ${ADMIN_TOKEN}x`,
      `Basic ${ADMIN_TOKEN}`,
      ADMIN_TOKEN,
      'Bearer ',
    ]) {
      const res = await credit({ authorization });
      expect(res.headers.get('www-authenticate'), authorization).to.equal('Bearer');
      await expectPlainError(res, 401, 'Unauthorized');
    }
  });

  it('checks the token before reading the body: malformed JSON without a token is 401, not 400', async () => {
    const res = await fetch(`${app.url}/admin/accounts/${alice}/credit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    await expectPlainError(res, 401, 'Unauthorized');
  });

  it('guards reads too, under /admin and /v1/admin, and credits nothing without the token', async () => {
    for (const path of [`/admin/accounts/${alice}`, `/v1/admin/accounts/${alice}/history`]) {
      await expectPlainError(await fetch(`${app.url}${path}`), 401, 'Unauthorized');
    }
    const res = await app.admin(`/admin/accounts/${alice}/history`);
    expect(await res.json()).to.deep.equal({ address: alice, events: [] });
  });

  it('accepts the scheme in any case', async () => {
    const res = await credit({ authorization: `bearer ${ADMIN_TOKEN}` });
    expect(res.status).to.equal(200);
  });
});

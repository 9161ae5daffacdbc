import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { creditedOnly } from '../support/balances.js';
import { ADMIN_TOKEN, alice, expectPlainError } from './support.js';

/** The admin API as the service mounts it (src/service.ts → createApp's `admin` option). */
describe('admin API in the service', () => {
  describe('without ADMIN_TOKEN', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(() => service.close());

    it('is off: every /admin and /v1/admin path answers 404 Not Found, whatever the token', async () => {
      for (const path of [`/admin/accounts/${alice}/credit`, `/v1/admin/accounts/${alice}/credit`]) {
        const res = await fetch(`${service.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ winc: '1000' }),
        });
        await expectPlainError(res, 404, 'Not Found');
      }
      await expectPlainError(await fetch(`${service.url}/admin/accounts/${alice}`), 404, 'Not Found');
    });
  });

  describe('with ADMIN_TOKEN', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ ADMIN_TOKEN });
    });
    after(() => service.close());

    it('answers 401 Unauthorized without the token', async () => {
      await expectPlainError(await fetch(`${service.url}/v1/admin/accounts/${alice}`), 401, 'Unauthorized');
    });

    it('credits an account that the public balance query shows right after the answer', async () => {
      const res = await fetch(`${service.url}/admin/accounts/${alice}/credit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ winc: '2500', creditId: 'svc-1' }),
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ ...creditedOnly(alice, '2500'), creditId: 'svc-1' });
      const balance = await fetch(`${service.url}/account/balance/${alice}`);
      expect(await balance.json()).to.deep.equal(creditedOnly(alice, '2500'));
    });
  });
});

import { expect } from 'chai';
import { startOpticalGateway, type OpticalGatewayDouble } from '../support/opticalGateway.js';

const KEY = 'gateway-admin-key-for-tests';
const header = { id: 'i', owner: 'o', owner_address: 'a', signature: 's', data_size: 0 };

/** The stand-in gateway refuses what ar-io-node refuses (the rules and their source: test/support/opticalGateway.ts). */
describe('the ar.io queue-data-item stand-in', () => {
  let gateway: OpticalGatewayDouble;
  before(async () => {
    gateway = await startOpticalGateway(KEY);
  });
  after(() => gateway.close());

  const post = async (body: string, headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }) => {
    const res = await fetch(`${gateway.url}/ar-io/admin/queue-data-item`, { method: 'POST', body, headers });
    return [res.status, await res.text()];
  };

  it('answers 401 Unauthorized without the admin key, whatever the body', async () => {
    expect(await post(JSON.stringify([header]), { 'content-type': 'application/json' })).to.deep.equal([401, 'Unauthorized']);
    expect(await post(JSON.stringify([header]), { 'content-type': 'application/json', authorization: 'Bearer other' })).to.deep.equal([401, 'Unauthorized']);
    expect(await post(JSON.stringify([header]), { 'content-type': 'application/json', authorization: KEY })).to.deep.equal([401, 'Unauthorized']);
  });

  it('answers 400 to a body that is not a non-empty array of headers with the five required fields', async () => {
    const refused = [[400, 'Must provide array of data item headers']];
    for (const body of [
      {},
      [],
      [null],
      ['x'],
      [{ ...header, data_size: undefined }],
      ...['id', 'owner', 'owner_address', 'signature'].map((k) => [{ ...header, [k]: undefined }]),
    ]) {
      expect([await post(JSON.stringify(body))], JSON.stringify(body)).to.deep.equal(refused);
    }
    expect(await post(JSON.stringify([header]), { 'content-type': 'text/plain', authorization: `Bearer ${KEY}` })).to.deep.equal(refused[0]);
    expect((await post('[{', undefined))[0]).to.equal(400);
  });

  it('answers 413 to a body over 100 KiB, and queues a good one', async () => {
    const big = JSON.stringify([{ ...header, tags: [{ name: 'x', value: 'y'.repeat(100 * 1024) }] }]);
    expect((await post(big))[0]).to.equal(413);
    expect(await post(JSON.stringify([header]))).to.deep.equal([200, JSON.stringify({ message: 'Data item(s) queued' })]);
    expect(gateway.queued).to.deep.equal([header]);
  });
});

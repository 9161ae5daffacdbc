import { expect } from 'chai';
import { toChecksumAddress } from '../../src/verify/index.js';
import { blocklistStream } from '../../src/domain/blocklist/decider.js';
import type { TestService } from '../support/testService.js';
import { BlockAnswerBody, BlocklistBody } from '../../src/http/openapi/bodies.js';
import { admin, expectText, startBlocklistService } from './support.js';

const alice = 'alice'.padEnd(43, 'A');
const eth = toChecksumAddress('0x' + 'ab'.repeat(20));

describe('block list: admin API', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startBlocklistService();
  });
  after(() => service?.close());

  it('blocks, lists with who, why and since when, and unblocks; a repeat changes nothing', async () => {
    const before = Date.now();
    const put = await admin(service, 'PUT', `/blocklist/${eth.toLowerCase()}`, { by: 'ops-alice', reason: 'spam' });
    expect(put.status).to.equal(200);
    const blocked = BlockAnswerBody.parse(await put.json());
    expect(blocked).to.deep.include({ address: eth, blocked: true, changed: true });
    expect(blocked.entry).to.deep.include({ address: eth, by: 'ops-alice', reason: 'spam' });
    expect(Date.parse(blocked.entry!.since)).to.be.within(before, Date.now());

    const again = BlockAnswerBody.parse(await (await admin(service, 'PUT', `/blocklist/${eth}`, { by: 'ops-bob', reason: 'again' })).json());
    expect(again).to.deep.equal({ ...blocked, changed: false });

    const list = BlocklistBody.parse(await (await admin(service, 'GET', '/blocklist')).json());
    expect(list).to.deep.equal({ blocked: [blocked.entry] });

    const del = await admin(service, 'DELETE', `/blocklist/${eth}`, { by: 'ops-bob', reason: 'appeal granted' });
    expect(BlockAnswerBody.parse(await del.json())).to.deep.equal({ address: eth, blocked: false, changed: true });
    const delAgain = await admin(service, 'DELETE', `/blocklist/${eth}`, { by: 'ops-bob', reason: 'twice' });
    expect(await delAgain.json()).to.deep.equal({ address: eth, blocked: false, changed: false });
    expect(await (await admin(service, 'GET', '/blocklist')).json()).to.deep.equal({ blocked: [] });

    // who, when and why, for good: two events, the repeats recorded nothing
    const events = [];
    for await (const e of service.eventStore.readStream(blocklistStream())) events.push({ type: e.type, data: e.data });
    expect(events).to.deep.equal([
      { type: 'AddressBlocked', data: { address: eth, by: 'ops-alice', reason: 'spam', timestamp: Date.parse(blocked.entry!.since) } },
      {
        type: 'AddressUnblocked',
        data: { address: eth, by: 'ops-bob', reason: 'appeal granted', timestamp: (events[1]!.data as { timestamp: number }).timestamp },
      },
    ]);
  });

  it('is served under /v1/admin too', async () => {
    const res = await fetch(`${service.url}/v1/admin/blocklist`, { headers: { authorization: 'Bearer test-only-admin-token-0123456789' } });
    expect(res.status).to.equal(200);
  });

  it('answers 401 Unauthorized without the token, and blocks nothing', async () => {
    for (const [method, path] of [
      ['GET', '/blocklist'],
      ['PUT', `/blocklist/${alice}`],
      ['DELETE', `/blocklist/${alice}`],
    ] as const) {
      const res = await fetch(`${service.url}/admin${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'GET' ? null : JSON.stringify({ by: 'x', reason: 'y' }),
      });
      await expectText(res, 401, 'Unauthorized');
    }
    expect(await (await admin(service, 'GET', '/blocklist')).json()).to.deep.equal({ blocked: [] });
  });

  it('answers 400 to an address of another shape, and to a body without who or why', async () => {
    await expectText(await admin(service, 'PUT', '/blocklist/not-an-address', { by: 'ops', reason: 'x' }), 400, 'Invalid address');
    for (const body of [{}, { by: 'ops' }, { reason: 'x' }, { by: '', reason: 'x' }, { by: 'ops', reason: '' }, { by: 'ops', reason: 'x', extra: 1 }]) {
      await expectText(await admin(service, 'PUT', `/blocklist/${alice}`, body), 400, 'Invalid request');
      await expectText(await admin(service, 'DELETE', `/blocklist/${alice}`, body), 400, 'Invalid request');
    }
    expect(await (await admin(service, 'GET', '/blocklist')).json()).to.deep.equal({ blocked: [] });
  });
});

import { expect } from 'chai';
import { history } from '../../src/history/history.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import type { TestService } from '../support/testService.js';
import { block, credit, startBlocklistService, unblock } from './support.js';

describe('block list: in the history of an address', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startBlocklistService();
  });
  after(() => service?.close());

  const output = async (argument: string, options = {}) => {
    const pieces: string[] = [];
    for await (const piece of history({ eventStore: service.eventStore }, argument, options)) pieces.push(piece);
    return pieces;
  };

  it("shows when the address was blocked and unblocked, by whom and why, among its account's events", async () => {
    const address = toChecksumAddress('0x' + '3c'.repeat(20));
    await credit(service, address, 100);
    await block(service, address, 'chargeback');
    await credit(service, address, 200);
    await unblock(service, address);

    const lines = (await output(address)).map((line) => line.replace(/  \d{4}-\d\d-\d\dT\S+Z  /, '  TIME  ').replace(/  \[.*\]$/, ''));
    expect(lines).to.deep.equal([
      `account-${address}`,
      '#0  TIME  AccountCredited          +100 winc (credit ' + lines[1]!.split('(credit ')[1],
      `blocklist#0  TIME  AddressBlocked           ${address} blocked by ops-alice: chargeback`,
      '#1  TIME  AccountCredited          +200 winc (credit ' + lines[3]!.split('(credit ')[1],
      `blocklist#1  TIME  AddressUnblocked         ${address} unblocked by ops-bob: appeal granted`,
    ]);

    const json = JSON.parse((await output(address, { json: true })).join(''));
    expect(json.map((e: { streamName: string; type: string }) => `${e.streamName} ${e.type}`)).to.deep.equal([
      `account-${address} AccountCredited`,
      'blocklist AddressBlocked',
      `account-${address} AccountCredited`,
      'blocklist AddressUnblocked',
    ]);
  });

  it('npm run history -- blocklist lists every change of the list', async () => {
    const lines = await output('blocklist');
    expect(lines[0]).to.equal('blocklist');
    expect(lines.slice(1).map((l) => l.split(/ {2,}/)[2])).to.deep.equal(['AddressBlocked', 'AddressUnblocked']);
  });
});

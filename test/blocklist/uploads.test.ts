import { expect } from 'chai';
import { toChecksumAddress } from '../../src/verify/index.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import type { TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { rawConnection, tempFiles, uploadHead } from '../limits/support.js';
import { eventually } from '../support/eventually.js';
import { available, block, credit, expectText, ownerOf, startBlocklistService, unblock, upload } from './support.js';
import { storedBlob } from '../support/storedBlob.js';

const refusal = (status: number, message: string) => new RegExp(`^HTTP/1\\.1 ${status} ${message}\\r\\n[^]*\\r\\n\\r\\n${message}$`);

async function eventsOf(service: TestService, id: string): Promise<number> {
  let n = 0;
  for await (const _ of service.eventStore.readStream(dataItemStream(id as DataItemId))) n += 1;
  return n;
}

describe('block list: single uploads (POST /tx)', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startBlocklistService();
  });
  after(() => service?.close());

  it('answers 403 Forbidden to a blocked owner once its header is in, without reading the rest: nothing stored, nothing charged', async () => {
    const item = await itemOfSize(signers.ethereum(), 300_000);
    const owner = ownerOf(item);
    await credit(service, owner, 1_000_000);
    await block(service, owner);

    // the client sends the header and a few payload bytes of a 300 kB item, then waits
    const conn = await rawConnection(service.url);
    const raw = item.getRaw();
    conn.socket.write(uploadHead('/tx', { 'Content-Length': String(raw.length) }));
    conn.socket.write(raw.subarray(0, item.getStartOfData() + 10));
    const received = await conn.closed;
    expect(received).to.match(refusal(403, 'Forbidden'));
    expect(received).to.include('\r\nConnection: close\r\n');

    await eventually(async () => (await tempFiles(service.dataDir)).length === 0, Boolean, 'no temporary blob left');
    expect(await storedBlob(service.dataDir, `items/${item.id}`)).to.equal(undefined);
    expect(await eventsOf(service, item.id)).to.equal(0);
    expect(await available(service, owner)).to.equal('1000000');
    await expectText(await fetch(`${service.url}/tx/${item.id}/status`), 404, "TX doesn't exist");
  });

  it('answers 403 Forbidden to every signature type whose owner is blocked, whole body sent', async () => {
    for (const signer of [signers.arweave(), signers.solana(), signers.hexSolana()]) {
      const item = await itemOfSize(signer, 2000);
      await block(service, ownerOf(item));
      await expectText(await upload(service, item), 403, 'Forbidden');
      await unblock(service, ownerOf(item));
    }
  });

  it('answers 403 Forbidden, before 100 Continue and before any body byte, to an upload naming a blocked payer', async () => {
    const payer = toChecksumAddress('0x' + '5'.repeat(40));
    await block(service, payer);
    const conn = await rawConnection(service.url);
    conn.socket.write(uploadHead('/tx', { 'Content-Length': '300000', Expect: '100-continue', 'x-paid-by': payer }));
    const received = await conn.closed;
    expect(received).to.match(refusal(403, 'Forbidden'));
    expect(received).not.to.include('100 Continue');

    // a whole item naming it is refused too; the owner's own balance is untouched
    const item = await itemOfSize(signers.ethereum(), 5000);
    await credit(service, ownerOf(item), 10_000);
    await expectText(await upload(service, item, { 'x-paid-by': payer.toLowerCase() }), 403, 'Forbidden');
    expect(await available(service, ownerOf(item))).to.equal('10000');
    expect(await eventsOf(service, item.id)).to.equal(0);
  });

  it('takes the uploads of an owner again once unblocked, and charges them', async () => {
    const item = await itemOfSize(signers.ethereum(), 5000);
    const owner = ownerOf(item);
    await credit(service, owner, 10_000);
    await block(service, owner);
    await expectText(await upload(service, item), 403, 'Forbidden');
    await unblock(service, owner);
    const res = await upload(service, item);
    expect(res.status).to.equal(200);
    expect((await res.json()).id).to.equal(item.id);
    expect(await available(service, owner)).to.equal('5000');
  });

  it('does not refuse other owners or payers', async () => {
    await block(service, toChecksumAddress('0x' + '6'.repeat(40)));
    const item = await itemOfSize(signers.ethereum(), 600);
    expect((await upload(service, item, { 'x-paid-by': toChecksumAddress('0x' + '7'.repeat(40)) })).status).to.equal(200);
  });
});

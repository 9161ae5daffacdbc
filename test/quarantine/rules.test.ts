import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
/** the reference's spam shape (issue 38: ardriveapp/turbo-upload-service src/routes/dataItemPost.ts): 100,372 bytes, no tags */
const SPAM_SIZE = 100_372;
/** a payload the operator knows (its digest as `sha384sum` prints it, in capitals here: any case is read) */
const KNOWN_PAYLOAD = Buffer.from('a payload the operator was told of, in any item');
const RULES = [
  { name: 'known-payload', match: { payloadSha384: [createHash('sha384').update(KNOWN_PAYLOAD).digest('hex').toUpperCase()] }, reason: 'known malware' },
  { name: 'untagged-100372', match: { size: SPAM_SIZE, untagged: true }, reason: 'known spam shape' },
  { name: 'no-phishing', action: 'refuse', match: { tags: [{ name: 'App-Name', value: 'Phish.*' }] }, reason: 'phishing kit' },
];

/** an untagged item of exactly `size` bytes signed by an arweave key */
async function untaggedOfSize(size: number) {
  const header = (await signedItem(signers.arweave(), new Uint8Array(0), [])).getRaw().length;
  return signedItem(signers.arweave(), randomBytes(size - header), []);
}

/**
 * The operator's rules (QUARANTINE_RULES) at acceptance, over real HTTP: an item matching a `hold`
 * rule is receipted and charged like any other, then held (451, `quarantined: true`, the rule named
 * in its stream); one matching a `refuse` rule is answered 403 `Forbidden` and nothing is stored or
 * charged; an item matching none is untouched.
 */
describe('quarantine rules at acceptance', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    // nothing is free: the held item is charged as the contract says
    service = await startTestService({ QUARANTINE_RULES: JSON.stringify(RULES), ADMIN_TOKEN, FREE_UPLOAD_LIMIT_BYTES: '0' });
  });
  after(() => service.close());

  const credit = async (address: string) => {
    const res = await fetch(`${service.url}/admin/accounts/${address}/credit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ winc: '1000000000000000' }),
    });
    expect(res.status).to.equal(200);
  };
  const balanceOf = async (address: string) => (await (await fetch(`${service.url}/account/balance/${address}`)).json()).winc as string;

  it('holds an item of the spam shape at acceptance: receipted and charged, then 451 and quarantined', async () => {
    const item = await untaggedOfSize(SPAM_SIZE);
    expect(item.getRaw().length).to.equal(SPAM_SIZE);
    await credit(ownerAddress(item));
    const before = BigInt(await balanceOf(ownerAddress(item)));
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
    const receipt = await res.json();
    expect(receipt.id).to.equal(item.id);
    expect(BigInt(receipt.winc) > 0n, receipt.winc).to.equal(true);
    expect(BigInt(await balanceOf(ownerAddress(item)))).to.equal(before - BigInt(receipt.winc));

    expect(await (await fetch(`${service.url}/tx/${item.id}/status`)).json()).to.include({ status: 'CONFIRMED', info: 'new', quarantined: true });
    const read = await fetch(`${service.url}/${item.id}`);
    expect([read.status, await read.text()]).to.deep.equal([451, 'Unavailable For Legal Reasons']);
    const events = [];
    for await (const e of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) events.push({ type: e.type, data: e.data });
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemQuarantined']);
    expect(events[1]!.data).to.deep.include({ id: item.id, by: 'rule:untagged-100372', reason: 'known spam shape', rule: 'untagged-100372' });
  });

  it('leaves alone an item of that size with a tag, and one of another size without tags', async () => {
    const header = (await signedItem(signers.arweave(), new Uint8Array(0))).getRaw().length;
    const tagged = await signedItem(signers.arweave(), randomBytes(SPAM_SIZE - header));
    const other = await untaggedOfSize(SPAM_SIZE + 1);
    await credit(ownerAddress(tagged));
    for (const item of [tagged, other]) {
      expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
      expect(await (await fetch(`${service.url}/tx/${item.id}/status`)).json()).to.not.have.property('quarantined');
      expect((await fetch(`${service.url}/${item.id}`)).status).to.equal(200);
    }
  });

  it('holds every item whose payload has a digest a rule names, whatever its tags, and no other', async () => {
    const items = [
      await signedItem(signers.arweave(), KNOWN_PAYLOAD, []),
      await signedItem(signers.arweave(), KNOWN_PAYLOAD, [{ name: 'Content-Type', value: 'text/plain' }]),
      await signedItem(signers.arweave(), Buffer.concat([KNOWN_PAYLOAD, Buffer.from('.')]), []),
    ];
    await credit(ownerAddress(items[0]!));
    const held = [];
    for (const item of items) {
      expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
      held.push((await fetch(`${service.url}/${item.id}`)).status);
    }
    expect(held).to.deep.equal([451, 451, 200]);
    const events = [];
    for await (const e of service.eventStore.readStream(dataItemStream(items[1]!.id as DataItemId))) events.push({ type: e.type, data: e.data });
    expect(events[1]).to.deep.include({ type: 'DataItemQuarantined' });
    expect(events[1]!.data).to.deep.include({ by: 'rule:known-payload', reason: 'known malware', rule: 'known-payload' });
  });

  it('refuses an item matching a refuse rule with 403 Forbidden, storing and charging nothing', async () => {
    const item = await signedItem(signers.arweave(), 'log in here', [{ name: 'App-Name', value: 'PhishKit' }]);
    await credit(ownerAddress(item));
    const before = await balanceOf(ownerAddress(item));
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect([res.status, res.statusText, await res.text()]).to.deep.equal([403, 'Forbidden', 'Forbidden']);
    expect((await fetch(`${service.url}/tx/${item.id}/status`)).status).to.equal(404);
    expect(await balanceOf(ownerAddress(item))).to.equal(before);
  });
});

/** base64url(sha256(owner)): the account of an arweave-signed item */
function ownerAddress(item: { rawOwner: Buffer }): string {
  return createHash('sha256').update(item.rawOwner).digest('base64url');
}

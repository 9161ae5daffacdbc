import { expect } from 'chai';
import { withArlocalService } from '../support/arlocalService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { openSse } from '../support/sse.js';

/**
 * End to end with arlocal as the gateway: a client following an item's status stream from its upload
 * sees every step the bundler records, to permanent, and then the end of the stream.
 */
describe("an item's live status, bundled on an Arweave gateway (arlocal)", function () {
  this.timeout(120_000);
  const env = withArlocalService();

  it("streams accepted, bundled, signed, posted, ..., permanent, with the status route's answers, and ends", async () => {
    const item = await signedItem(signers.arweave(), 'followed live', [{ name: 'Content-Type', value: 'text/plain' }]);
    expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const events = await openSse(`${env.service.url}/v1/tx/${item.id}/events`);
    expect((await events.next())!.event).to.equal('accepted');

    await env.service.bundler.runOnce();
    await env.arlocal.mine(20);
    await env.service.bundler.runOnce();
    const rest = await events.rest();
    const names = rest.map((m) => m.event);
    // planned, signed, posted and seeded by the first pass; permanent at the second (20 blocks: past the 18 confirmations)
    expect(names).to.deep.equal(['bundled', 'signed', 'posted', 'seeded', 'permanent']);
    // the order the bundler recorded them in: each id after the one before
    const ids = rest.map((m) => BigInt(m.id!));
    expect(ids.every((p, i) => i === 0 || p > ids[i - 1]!)).to.equal(true);
    const last = JSON.parse(rest.at(-1)!.data) as Record<string, unknown> & { change: Record<string, unknown> };
    const status = await (await fetch(`${env.service.url}/tx/${item.id}/status`)).json();
    expect(status).to.include({ status: 'FINALIZED', info: 'permanent' });
    expect(last).to.deep.equal({ id: item.id, ...status, change: { ...last.change, event: 'permanent', bundleId: status.bundleId } });
    expect(last.change.confirmations).to.be.a('number');
  });
});

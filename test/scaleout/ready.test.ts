/**
 * Readiness under load on the scale-out profile: after a burst of uploads the read models catch up
 * with the EventStoreDB node and `/ready` answers 200 with no projector lag.
 */
import { expect } from 'chai';
import { asBody, signedItem, signers } from '../support/items.js';
import { startScaleoutService, type ScaleoutService } from './support.js';
import { eventually } from '../support/eventually.js';

describe('/ready under load on the scale-out profile', function () {
  this.timeout(300_000);
  let service: ScaleoutService;
  before(async () => {
    service = await startScaleoutService();
  });
  after(() => service?.close());

  it('answers 200 with projectorLag 0 once 200 uploads (20 at a time) are projected', async () => {
    const items = await Promise.all(Array.from({ length: 200 }, (_, i) => signedItem(i % 2 ? signers.ethereum() : signers.solana(), `load ${i}`)));
    const statuses: number[] = [];
    for (let i = 0; i < items.length; i += 20) {
      const batch = items.slice(i, i + 20);
      const answers = await Promise.all(batch.map((item) => fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })));
      statuses.push(...answers.map((a) => a.status));
      await Promise.all(answers.map((a) => a.arrayBuffer()));
    }
    expect(statuses).to.deep.equal(Array<number>(200).fill(200));
    const ready = await eventually(
      async () => {
        const res = await fetch(`${service.url}/ready`);
        return { status: res.status, body: await res.json() };
      },
      (r) => r.status === 200,
      '/ready',
    );
    expect(ready.body.checks.projectorLag).to.deep.equal({ ok: true, behind: 0, max: 10_000 });
    expect(ready.body.status).to.equal('ready');
    for (const item of [items[0]!, items[199]!]) {
      expect((await (await fetch(`${service.url}/tx/${item.id}/status`)).json()).status).to.equal('CONFIRMED');
    }
  });
});

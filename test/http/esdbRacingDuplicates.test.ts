import { expect } from 'chai';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { startEsdbTestDouble, type EsdbTestDouble } from '../support/esdbTestDouble.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { startTestService, type TestService } from '../support/testService.js';

/**
 * The service on EventStoreDB as configured (EVENT_STORE=esdb): its adapter is imported
 * dynamically, which under mocha loads a second copy of the port module, so its errors are made by
 * other classes than the ones the command handlers imported. A lost race must still be told apart.
 */
describe('racing duplicates on the EventStoreDB adapter loaded from configuration', function () {
  this.timeout(120_000);
  let node: EsdbTestDouble;
  let service: TestService;
  before(async () => {
    node = await startEsdbTestDouble();
    service = await startTestService({ EVENT_STORE: 'esdb', EVENTSTORE_URL: node.connectionString });
  });
  after(async () => {
    await service?.close();
    await node?.stop();
  });

  it('answers one 200 and 202 with the same receipt to every other of 30 uploads of the same item', async () => {
    const item = await signedItem(signers.arweave());
    const answers = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
        const text = await res.text();
        return { status: res.status, text };
      }),
    );
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, ...Array<number>(29).fill(202)]);
    expect(new Set(answers.map((a) => a.text)).size).to.equal(1);
    const events = [];
    for await (const e of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) events.push(e.type);
    expect(events).to.deep.equal(['DataItemAccepted']);
  });
});

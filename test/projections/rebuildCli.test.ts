import { runScript } from '../support/runScript.js';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { allProjections, collectionOf } from '../../projections/index.js';
import { freshReadModels, readModelsOf } from './readModels.js';

/** `npm run rebuild` as tsx runs it, in another process, with only the given configuration; stderr is a pipe, not a terminal */

const names = allProjections.map((p) => p.name).join(', ');

describe('npm run rebuild', function () {
  this.timeout(120_000);
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const statusOf = async (id: string) => (await fetch(`${service.url}/tx/${id}/status`)).status;

  it('rebuilds the running service read models and exits 0, with plain progress lines when stderr is not a terminal', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const item = await signedItem(signers.arweave());
      expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
      ids.push(item.id);
    }
    const head = await service.eventStore.headPosition();

    const result = await runScript('rebuild', ['--batch-size', '2'], { DATA_DIR: service.dataDir });

    expect(result.code, result.stderr).to.equal(0);
    const out = result.stdout.trimEnd().split('\n');
    expect(out.slice(0, -1)).to.deep.equal(allProjections.map((p) => `switched to the rebuilt ${collectionOf(p)} (at position ${head})`));
    expect(out[out.length - 1]).to.match(new RegExp(`^rebuilt ${allProjections.length} read models from ${head} events in \\d+\\.\\d s \\(\\d+ events/s\\)$`));
    expect(result.stderr).not.to.include('\r');
    const lines = result.stderr.trimEnd().split('\n');
    for (const line of lines) expect(line).to.match(/^rebuild: \d+\/\d+ events \(\d+\.\d%\), \d+ events\/s, ETA \d+:\d\d$/);
    // a line after the first batch, then every 5 s, and one at the end
    expect(lines[0]!.split(',')[0]).to.equal(`rebuild: 2/${head} events (${(200 / Number(head)).toFixed(1)}%)`);
    expect(lines[lines.length - 1]!.split(',')[0]).to.equal(`rebuild: ${head}/${head} events (100.0%)`);

    expect(await service.projections.waitFor(await service.eventStore.headPosition(), 10_000)).to.equal(true);
    expect(await readModelsOf(service.readStore, allProjections)).to.deep.equal(await freshReadModels(service.eventStore, allProjections));
    for (const id of ids) expect(await statusOf(id)).to.equal(200);
  });

  it('exits 2 naming the known projections when asked for an unknown one', async () => {
    const result = await runScript('rebuild', ['tx-status', 'nope'], { DATA_DIR: service.dataDir });
    expect(result.code).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr.split('\n')[0]).to.equal(`unknown projection: nope (known: ${names})`);
    expect(result.stderr).to.include('usage: npm run rebuild -- [projection ...] [--drop-old] [--batch-size N]');
  });
});

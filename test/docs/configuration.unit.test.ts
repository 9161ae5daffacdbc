import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { ConfigSchema, configVariables } from '../../src/config.js';
import { configurationMarkdown } from '../../scripts/lib/configDocs.js';

/** docs/configuration.md is generated from the schema (`npm run docs`): the committed page must be what the schema gives now. */
describe('docs/configuration.md', () => {
  const page = () => readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

  it('is what `npm run docs` writes from the schema in src/config.ts today (run it after changing the schema)', async () => {
    expect(await page()).to.equal(configurationMarkdown());
  });

  it('lists every variable the service reads, each once, in the first column of its table', async () => {
    const listed = (await page())
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => /^\| `([A-Z][A-Z0-9_]*)`/.exec(line)?.[1]);
    expect(listed).to.deep.equal([...configVariables]);
  });

  it('takes each meaning from the schema: every variable carries a description there', () => {
    const undescribed = Object.entries(ConfigSchema.shape)
      .filter(([, schema]) => !schema.description)
      .map(([name]) => name);
    expect(undescribed).to.deep.equal([]);
  });

  it("gives the default the service takes and the range the schema accepts: PORT's row", async () => {
    const row = (await page()).split('\n').find((line) => line.startsWith('| `PORT` |'));
    expect(row).to.equal('| `PORT` | `3000` | integer, `0` to `65535` | HTTP port (0: any free port) |');
  });
});

/**
 * `npm run docs`: writes the generated pages of docs/ from the code they describe (today
 * docs/configuration.md, from the zod schema in src/config.ts). `--check` writes nothing and exits 1
 * when a page is stale, naming it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { configurationMarkdown } from './lib/configDocs.js';
import { bestEffort } from '../src/bestEffort.js';

const pages: { path: URL; text: () => string }[] = [{ path: new URL('../docs/configuration.md', import.meta.url), text: configurationMarkdown }];

const check = process.argv.includes('--check');
let stale = 0;
for (const page of pages) {
  const text = page.text();
  const current = await bestEffort(readFile(page.path, 'utf8'), 'a page not written yet is written now');
  if (current === text) continue;
  if (check) {
    stale += 1;
    process.stderr.write(`stale: ${page.path.pathname} (run npm run docs)\n`);
  } else {
    await writeFile(page.path, text);
    process.stdout.write(`wrote ${page.path.pathname}\n`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;

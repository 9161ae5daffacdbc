import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { configVariables } from '../../src/config.js';

/** The README is the front door: short, and never naming a setting or a command the code does not have. */
describe('README', () => {
  const readme = () => readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = (text: string, heading: string) => {
    const start = text.indexOf(`\n## ${heading}\n`);
    expect(start, `section ${heading}`).to.be.greaterThan(-1);
    const end = text.indexOf('\n## ', start + 1);
    return text.slice(start, end === -1 ? undefined : end);
  };

  it('starts with the two commands for a newcomer: install and start, install and test', async () => {
    const commands = (await readme())
      .split('\n')
      .filter((line) => line.startsWith('npm '))
      .slice(0, 2)
      .map((line) => line.replace(/\s+#.*$/, ''));
    expect(commands).to.deep.equal(['npm ci && npm start', 'npm ci && npm test']);
  });

  it('stays a front door: at most 250 lines and 25 KB (the rest is in docs/)', async () => {
    const text = await readme();
    expect(text.split('\n').length).to.be.at.most(250);
    expect(Buffer.byteLength(text)).to.be.at.most(25 * 1024);
  });

  it('names only configuration variables the service reads: in its settings table, in backquotes and in assignments', async () => {
    const text = await readme();
    const named = new Set<string>();
    for (const line of section(text, 'Settings an operator touches first')
      .split('\n')
      .filter((l) => l.startsWith('| `'))) {
      for (const [, name] of line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) named.add(name!);
    }
    // anywhere else: a backquoted NAME_WITH_UNDERSCORES (or NAME=value), or NAME=value in a command
    for (const [, name] of text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)) named.add(name!);
    for (const [, name] of text.matchAll(/(?:^|[\s`(])([A-Z][A-Z0-9_]*)=/gm)) named.add(name!);
    expect(named.size, 'variables named').to.be.greaterThan(9);
    expect([...named].filter((name) => !configVariables.includes(name)).sort()).to.deep.equal([]);
  });

  it('sends the reader to the page that lists every variable', async () => {
    expect(section(await readme(), 'Settings an operator touches first')).to.include('(docs/configuration.md)');
  });

  it('documents every npm script', async () => {
    const text = await readme();
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    // npm runs `pre<name>` and `post<name>` itself around `<name>`: they are named, not run by hand
    const hook = (name: string) => /^(pre|post)./.test(name) && pkg.scripts[name.replace(/^(pre|post)/, '')] !== undefined;
    const mention = (name: string) => (name === 'start' || name === 'test' ? `npm ${name}` : hook(name) ? `\`${name}\`` : `npm run ${name}`);
    const missing = Object.keys(pkg.scripts).filter((name) => !text.includes(mention(name)));
    expect(missing).to.deep.equal([]);
  });

  it('links only to files of the repository that exist', async () => {
    const text = await readme();
    const targets = [...text.matchAll(/\]\(((?:docs\/|\.\/)?[\w./-]+\.md)(?:#[\w-]+)?\)/g)].map(([, path]) => path!);
    const missing: string[] = [];
    for (const path of new Set(targets)) {
      await readFile(new URL(`../../${path}`, import.meta.url)).catch(() => missing.push(path));
    }
    expect(targets.length).to.be.greaterThan(5);
    expect(missing).to.deep.equal([]);
  });
});

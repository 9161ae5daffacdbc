import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { configVariables } from '../../src/config.js';

/** The README is the operator's reference: it must not fall behind the code it describes. */
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

  it('lists every configuration variable the service reads, and none it does not', async () => {
    const table = section(await readme(), 'Configuration');
    const listed = new Set<string>();
    for (const line of table.split('\n').filter((l) => l.startsWith('| `'))) {
      const firstCell = line.split('|')[1]!;
      for (const [, name] of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) listed.add(name!);
    }
    expect([...listed].sort()).to.deep.equal([...configVariables].sort());
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
});

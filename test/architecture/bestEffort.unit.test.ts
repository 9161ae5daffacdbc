import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** a catch that drops the error: `.catch(() => {})`, `.catch(() => undefined)`, `.catch(() => null)` */
const DROPPED = /\.catch\(\(\) => (\{\s*\}|undefined|null|void 0)\)/;

/**
 * Every place that lets an error go says so: through bestEffort(step, why), or, for a promise only marked
 * handled because it is awaited later (its failure still surfaces there), a `handled` comment on the line
 * or the line above. The benchmarks are left out: they are harnesses, not the service.
 */
function unmarkedDrops(): string[] {
  const found: string[] = [];
  for (const dir of ['src', 'projections', 'scripts']) {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !/\.(ts|mjs)$/.test(entry.name)) continue;
      const file = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (file === 'src/bestEffort.ts' || file.startsWith('scripts/bench/')) continue;
      const lines = readFileSync(join(root, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (DROPPED.test(line) && !/handled/.test(line) && !/handled/.test(lines[i - 1] ?? '')) found.push(`${file}:${i + 1}`);
      });
    }
  }
  return found;
}

describe('errors dropped on purpose', () => {
  it('are dropped through bestEffort(step, why), or marked handled where the promise is awaited later', () => {
    expect(unmarkedDrops()).to.deep.equal([]);
  });

  it('are recognised in each spelling', () => {
    for (const spelling of ['p.catch(() => {})', 'p.catch(() => { })', 'p.catch(() => undefined)', 'p.catch(() => null)'])
      expect(DROPPED.test(spelling), spelling).to.equal(true);
    expect(DROPPED.test('p.catch((error) => log(error))')).to.equal(false);
  });
});

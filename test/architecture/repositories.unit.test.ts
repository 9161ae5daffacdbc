import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** the files of `dirs` (under the repository's root) that construct `repository` */
function constructedIn(repository: string, dirs: readonly string[]): string[] {
  const found: string[] = [];
  for (const dir of dirs) {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (readFileSync(join(root, file), 'utf8').includes(`new ${repository}(`)) found.push(file);
    }
  }
  return found.sort();
}

/**
 * A repository's per-stream lock and cache hold only if every part of a process shares one: the
 * service builds each once in its composition root and hands it on (a part that built its own would
 * race the others' commands on the same stream through the store's conflicts, with a cache of its own).
 */
describe('the repositories of the service', () => {
  it('are built once, in the composition root', () => {
    expect(constructedIn('DataItemRepository', ['src', 'projections'])).to.deep.equal(['src/wiring/shared.ts']);
    expect(constructedIn('AccountRepository', ['src', 'projections'])).to.deep.equal(['src/wiring/shared.ts']);
  });
});

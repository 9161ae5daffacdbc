import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';

/**
 * The import graph of src/, projections/ and scripts/: no circle, and no arrow up the layers. Each file's
 * imports are read by the TypeScript compiler's pre-processor (static imports, `import type`, re-exports and
 * dynamic `import()` alike), resolved to files, and checked against the layer table below.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Low to high; a module may import its own layer and the ones below it, never one above; a file named here
 * is placed by its own entry, not its folder's. The ports (the event store's vocabulary of streams and
 * events among them) are the floor the domain stands on; crypto, verify, bundling, receipts and wallet are
 * libraries the use cases share; src/contract holds the wire contract's words (request schemas, response
 * bodies, error messages) that the web layer and the operator CLIs both speak.
 */
const LAYERS: readonly (readonly string[])[] = [
  [
    'src/ports',
    'src/bestEffort.ts',
    'src/bufferPool.ts',
    'src/gatheredWrites.ts',
    // the x402 package and viem, loaded where x402 is configured
    'src/x402Packages.ts',
    'src/clock.ts',
    'src/lru.ts',
    'src/lifecycle.ts',
    'src/log.ts',
    'src/version.ts',
    'src/config.ts',
  ],
  ['src/domain'],
  ['src/crypto', 'src/verify', 'src/bundling', 'src/receipts', 'src/wallet'],
  ['projections'],
  // the wallet's file, written as the file-system adapter writes every file that must survive a crash
  ['src/adapters', 'src/app', 'src/queries', 'src/audit', 'src/history', 'src/metrics', 'src/wallet/loadOrCreateWallet.ts'],
  ['src/contract'],
  ['src/http'],
  // the composition root: the wiring of each role, and the root that lists them
  ['src/roles.ts', 'src/wiring'],
  ['src/service.ts'],
  // the process's own start: what only the entry point does (src/heapTuning.ts)
  ['src/main.ts', 'src/heapTuning.ts'],
];

/** Folders outside the layers, and what each must never import. */
const OUTSIDE: Record<string, readonly string[]> = {
  // the operator CLIs and benchmarks call the app, the adapters and the contract, never the web layer
  scripts: ['src/http'],
};

const SOURCE = /\.(ts|mts|mjs)$/;

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

/**
 * The repository files a module imports (packages and node: built-ins left out): `.js` names its `.ts`
 * source; a JavaScript module with a declaration file (blobHashes.mjs and .d.mts) is both, since the
 * compiler reads the declaration's imports.
 */
function importsOf(file: string, text: string, exists: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = relative(root, resolve(root, dirname(file), fileName))
      .split(sep)
      .join('/');
    const candidates = [target.replace(/\.js$/, '.ts'), target, target.replace(/\.(m?)js$/, '.d.$1ts')].filter(exists);
    found.push(...(candidates.length > 0 ? new Set(candidates) : [target]));
  }
  return found;
}

type Graph = ReadonlyMap<string, readonly string[]>;

function importGraph(): Graph {
  const files = ['src', 'projections', 'scripts'].flatMap(filesUnder);
  const all = new Set(files);
  const exists = (path: string) => all.has(path) || existsSync(join(root, path));
  return new Map(files.map((file) => [file, importsOf(file, readFileSync(join(root, file), 'utf8'), exists)]));
}

/** Every circle: the strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const within = (file: string, place: string) => file === place || file.startsWith(`${place}/`);

function layerOf(file: string): number | undefined {
  let found: { layer: number; place: string } | undefined;
  LAYERS.forEach((places, layer) => {
    for (const place of places) if (within(file, place) && place.length > (found?.place.length ?? -1)) found = { layer, place };
  });
  return found?.layer;
}

/** Every import that points up the layers or into a folder it must not use, as `from -> to`. */
function upwardArrows(graph: Graph): string[] {
  const arrows: string[] = [];
  for (const [from, targets] of graph) {
    const forbidden = Object.entries(OUTSIDE).find(([place]) => within(from, place))?.[1];
    for (const to of targets) {
      const arrow = `${from} -> ${to}`;
      if (forbidden) {
        if (forbidden.some((place) => within(to, place))) arrows.push(arrow);
        continue;
      }
      const [a, b] = [layerOf(from), layerOf(to)];
      if (a !== undefined && b !== undefined && b > a) arrows.push(arrow);
    }
  }
  return arrows.sort();
}

describe('the import graph of src/, projections/ and scripts/', () => {
  const graph = importGraph();

  it('reads the imports it checks: static, type-only, re-exports and dynamic', () => {
    // the reader must see every kind of import, or the rules below would pass for want of edges
    expect(graph.get('src/main.ts')).to.include('src/service.ts');
    expect(graph.get('src/crypto/blobHasher.ts')).to.include('src/crypto/blobHashWorkerProtocol.ts');
    expect(graph.get('src/verify/index.ts')).to.include('src/crypto/deepHash.ts');
    // a JavaScript module's declaration file is read too: its imports are the compiler's
    expect(graph.get('src/crypto/blobHasher.ts')).to.include.members(['src/crypto/blobHashes.mjs', 'src/crypto/blobHashes.d.mts']);
    const dynamic = importsOf('src/x.ts', "const m = await import('./y.js');", (p) => p === 'src/y.ts');
    expect(dynamic).to.deep.equal(['src/y.ts']);
    expect(importsOf('src/x.ts', "import type { A } from '../b/c.js'; export * from './d.js';", () => false)).to.deep.equal(['b/c.js', 'src/d.js']);
  });

  it('places every file of src/ and projections/ in a layer', () => {
    const unplaced = [...graph.keys()].filter((file) => !within(file, 'scripts') && layerOf(file) === undefined);
    expect(unplaced).to.deep.equal([]);
  });

  it('has no circle', () => {
    expect(circles(graph)).to.deep.equal([]);
  });

  it('finds a circle when there is one', () => {
    const circle = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts', 'd.ts']],
    ]);
    expect(circles(circle)).to.deep.equal([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });

  it('finds an arrow up the layers when there is one, and scripts/ reaching into src/http', () => {
    const arrows = new Map([
      ['src/domain/a.ts', ['src/ports/eventStore.ts', 'src/http/b.ts']],
      ['scripts/c.ts', ['src/http/d.ts', 'src/app/e.ts', 'src/service.ts']],
      ['src/http/f.ts', ['src/domain/a.ts', 'src/contract/g.ts']],
      ['src/wallet/rsaJwk.ts', ['src/wallet/loadOrCreateWallet.ts']],
    ]);
    expect(upwardArrows(arrows)).to.deep.equal([
      'scripts/c.ts -> src/http/d.ts',
      'src/domain/a.ts -> src/http/b.ts',
      'src/wallet/rsaJwk.ts -> src/wallet/loadOrCreateWallet.ts',
    ]);
  });

  it('has no arrow up the layers, and scripts/ import nothing from src/http', () => {
    expect(upwardArrows(graph)).to.deep.equal([]);
  });

  it('keeps src/app, src/queries, src/domain and scripts/ off src/http, and src/domain off verify, app and adapters', () => {
    // the rules issue 35 names, stated on their own so a change to the layer table cannot drop them
    const rules: [string, string[]][] = [
      ['src/app', ['src/http']],
      ['src/queries', ['src/http']],
      ['src/domain', ['src/http', 'src/verify', 'src/app', 'src/adapters']],
      ['scripts', ['src/http']],
    ];
    const broken = [...graph].flatMap(([from, targets]) =>
      rules
        .filter(([place]) => within(from, place))
        .flatMap(([, forbidden]) => targets.filter((to) => forbidden.some((place) => within(to, place))).map((to) => `${from} -> ${to}`)),
    );
    expect(broken).to.deep.equal([]);
  });
});

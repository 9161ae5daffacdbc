import { expect } from 'chai';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, TARGETS } from '../../scripts/bench/lib/suite.js';
import { settled, storeFigures } from '../../scripts/bench/lib/storeFigures.js';

const bench = suite.find((b) => b.name === 'per-item-costs')!;

/** a per-item-costs JSON line as the benchmark prints it, the figures the rows read */
const json = {
  items: 1000,
  itemBytesPerItem: 1437.6,
  cpuMsPerUploadByType: { arweave: 6.3, solana: 5.45 },
  settled: {
    eventStore: { fileBytesPerItem: 4403.2, eventsPerItem: 1.006, serializedBytesPerItem: 2596.9 },
    readStore: { fileBytesPerItem: 6725.6, collections: { receipts_v1: { documentsPerItem: 1, docBytesPerItem: 1617, keysPerItem: 0 } } },
    smallBlobs: { fileBytesPerItem: 1974.3, storedBytesPerItem: 1438.4 },
  },
  bundler: {
    bundles: 1,
    itemsPerBundle: 1000,
    eventsPerBundle: 6,
    eventBytesPerItem: 176.7,
    cpuMsPerItem: 0.59,
    postedBytesPerItem: 2007.3,
    postedToItemBytes: 1.396,
  },
  large: { bytes: 32 * 2 ** 20, uploadCpuSecondsPerGiB: 6.72, bundleCpuSecondsPerGiB: 13.76, fileBytes: 33554432, allocatedBytes: 33554432 },
};

describe('npm run bench: the per-item costs', () => {
  it("gives each store's growth per item against the item's own bytes, CPU per upload by type, the bundler's and the large item's", () => {
    const rows = bench.rows(json, TARGETS.full);
    expect(rows.map((r) => [r.figure, r.value, r.unit, r.ratio])).to.deep.equal([
      ['event store file growth per item, 1000 items, settled', 4403.2, 'bytes', 3.06],
      ['read store file growth per item, 1000 items, settled', 6725.6, 'bytes', 4.68],
      ['small-blob table growth per item, 1000 items, settled', 1974.3, 'bytes', 1.37],
      ['service CPU per 1 KiB upload, arweave (bundler stopped)', 6.3, 'ms', undefined],
      ['service CPU per 1 KiB upload, solana (bundler stopped)', 5.45, 'ms', undefined],
      ['bundler CPU per item, to permanent (projections of its events included)', 0.59, 'ms', undefined],
      ['service CPU per GiB, a 32 MiB item: upload', 6.72, 's', undefined],
    ]);
    expect(rows[1]!.notes).to.equal("documents' JSON per item: receipts_v1 1617 B");
    expect(rows[5]!.notes).to.equal("1 bundles of 1000 items, 6 events each (176.7 bytes per item); posted 2007.3 bytes per item (1.396 of the items' bytes)");
    expect(rows[6]!.notes).to.equal('bundling and posting it: 13.76 CPU s per GiB; its file 33554432 bytes, 33554432 allocated');
  });

  it('refuses a JSON line without a figure it shows, naming it', () => {
    const { bundler, ...withoutBundler } = json;
    void bundler;
    expect(() => bench.rows(withoutBundler, TARGETS.full)).to.throw('the JSON has no number at bundler.cpuMsPerItem');
  });
});

describe('per-item costs: reading the stores of a data directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'per-item-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** events.db and read.db in the service's shapes (the columns these readers use), with these rows */
  function stores(events: [type: string, stream: string, data: object][], checkpoints: [string, number][]) {
    const e = new Database(join(dir, 'events.db'));
    e.exec('CREATE TABLE events (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL)');
    const add = e.prepare('INSERT INTO events (stream, type, data, metadata) VALUES (?, ?, ?, ?)');
    for (const [type, stream, data] of events) add.run(stream, type, JSON.stringify(data), '{"m":1}');
    e.close();
    const r = new Database(join(dir, 'read.db'));
    r.exec(`CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
      CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, doc TEXT NOT NULL);
      CREATE TABLE document_keys (collection TEXT NOT NULL, key TEXT NOT NULL, sort TEXT NOT NULL, id TEXT NOT NULL);
      INSERT INTO documents VALUES ('receipts_v1', 'a', 1, '{"x":"é"}');
      INSERT INTO document_keys VALUES ('graphql-items_v1', 'k', 's', 'a');`);
    for (const [name, position] of checkpoints) r.prepare('INSERT INTO checkpoints VALUES (?, ?)').run(name, position);
    r.close();
  }
  const accepted = (id: string): [string, string, object] => ['DataItemAccepted', `dataItem-${id}`, { id }];
  const permanent: [string, string, object] = ['BundlePermanent', 'bundle-p1', { itemIds: ['a', 'b'] }];

  it('is settled once every projection is at the last event and, when asked, every accepted item is in a permanent bundle', () => {
    stores(
      [accepted('a'), accepted('b'), permanent],
      [
        ['one', 3],
        ['two', 3],
      ],
    );
    expect(settled(dir, { bundled: true })).to.equal(true);
  });

  it('is not settled while one projection is behind the last event', () => {
    stores(
      [accepted('a'), accepted('b'), permanent],
      [
        ['one', 3],
        ['two', 2],
      ],
    );
    expect(settled(dir, { bundled: false })).to.equal(false);
  });

  it('is not settled, when asked for bundles, while an accepted item is in no permanent bundle', () => {
    stores([accepted('a'), accepted('b'), accepted('c'), permanent], [['one', 4]]);
    expect(settled(dir, { bundled: false })).to.equal(true);
    expect(settled(dir, { bundled: true })).to.equal(false);
  });

  it('counts events and their UTF-8 bytes by type, streams by category, documents and keys by collection', () => {
    stores([accepted('a'), accepted('b'), permanent], [['one', 3]]);
    const figures = storeFigures(dir);
    expect(figures.events.count).to.equal(3);
    expect(figures.events.byType).to.deep.equal({
      BundlePermanent: { count: 1, dataBytes: 21, metadataBytes: 7 },
      DataItemAccepted: { count: 2, dataBytes: 20, metadataBytes: 14 },
    });
    expect(figures.events.streams).to.deep.equal({ bundle: 1, dataItem: 2 });
    expect(figures.read.collections).to.deep.equal({ receipts_v1: { documents: 1, docBytes: 10, keys: 0 } });
    expect(figures.smallBlobs).to.deep.equal({ fileBytes: 0, rows: 0, bytes: 0 });
  });
});

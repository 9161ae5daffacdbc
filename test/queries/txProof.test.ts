import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { Router } from 'express';
import { validatePath } from 'arweave/node/lib/merkle.js';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { DataItemId } from '../../src/domain/ids.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { applyEvents, type PositionedDocument } from '../../projections/apply.js';
import { allProjections, collectionOf, type AnyProjection } from '../../projections/index.js';
import { HashList } from '../../src/bundling/hashList.js';
import { DataTree } from '../../src/bundling/merkle.js';
import { saveTree, treeBlobKey } from '../../src/bundling/index.js';
import { createTxProofQuery, type TxProof } from '../../src/queries/txProof.js';
import { serveTxProof } from '../../src/http/txProof.js';
import { errorHandler } from '../../src/http/errors.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { tempBlobStore, type TempBlobStore } from '../support/tempBlobStore.js';
import { eventually } from '../support/eventually.js';
import { createPaceWatch, type PaceWatch } from '../../src/http/bodyRate.js';
import { request } from 'node:http';

const KiB = 1024;
const PLAN = 'pLaNiD0123456789abcdef';
const TX = 'B'.repeat(43);
const AT = 1_700_000_000_000;
/** an item of 200 chunks and a bit, after a small one: more paths than one write of the answer (64) */
const SMALL = itemId(1);
const LARGE = itemId(2);
const ROOT_OF_NESTED = SMALL;
const NESTED = itemId(3);
const HEADER = 32 + 64 * 2;
const sizes = { [SMALL]: 1100, [LARGE]: 200 * 256 * KiB + 5000 };
const TOTAL = HEADER + sizes[SMALL]! + sizes[LARGE]!;

/** a bundle's tree from made-up chunk hashes: the query reads hashes only, never bytes */
function bundleTree(): DataTree {
  const hashed = new HashList();
  for (let end = 0, i = 0; end < TOTAL; i++) {
    end = Math.min(TOTAL, end + 256 * KiB);
    hashed.push(createHash('sha256').update(`chunk ${i}`).digest(), end);
  }
  return new DataTree(hashed);
}

/** the items accepted, the small one's nested index, their bundle planned and signed over `tree` (the large item fills the rest) */
function story(tree: DataTree): DomainEvent[] {
  const dataRoot = Buffer.from(tree.dataRoot).toString('base64url');
  const total = tree.dataSize;
  const large = total - HEADER - sizes[SMALL]!;
  return [
    dataItemAccepted(SMALL, { rawContentLength: sizes[SMALL]!, timestamp: AT }),
    dataItemAccepted(LARGE, { rawContentLength: large, timestamp: AT }),
    {
      type: 'NestedItemsIndexed',
      data: {
        id: ROOT_OF_NESTED,
        items: [
          {
            id: NESTED,
            parentId: ROOT_OF_NESTED,
            startOffsetInParentDataItemPayload: 96,
            offsetInRootItem: 1000,
            rawContentLength: 90,
            payloadDataStart: 80,
            payloadContentType: 'text/plain',
            depth: 1,
          },
        ],
        timestamp: AT,
        verified: true,
      },
    },
    {
      type: 'BundlePlanned',
      data: {
        planId: PLAN,
        timestamp: AT,
        items: [
          { id: SMALL, size: sizes[SMALL]!, offset: HEADER },
          { id: LARGE, size: large, offset: HEADER + sizes[SMALL]! },
        ],
        headerSize: HEADER,
        totalSize: total,
      },
    },
    {
      type: 'BundlePrepared',
      data: { planId: PLAN, timestamp: AT, itemIds: [SMALL, LARGE], txId: TX, reward: '1', anchor: 'a', dataRoot, dataSize: total, anchorHeight: 1, tx: {} },
    },
  ];
}

function project(p: AnyProjection, events: DomainEvent[]) {
  const docs = new Map<string, PositionedDocument<unknown>>();
  applyEvents(
    p,
    events.map((event, i) => ({ event, recorded: { position: BigInt(i + 1) } as RecordedEvent })),
    docs,
  );
  return docs;
}

const allChunks = (proof: TxProof) => [...proof.chunks()];

/**
 * The proof query over real stores (SQLite read models built by the projections, fs blobs): which
 * chunks it lists, what it says without a kept tree or with one of another root, and its answer over
 * HTTP when it is long.
 */
describe('proof of an item (GET /tx/:id/proof)', () => {
  let readStore: ReadStore;
  let blobs: TempBlobStore;
  let tree: DataTree;
  let query: ReturnType<typeof createTxProofQuery>;

  async function given(events: DomainEvent[]) {
    for (const p of allProjections) {
      const docs = project(p, events);
      await readStore.commit(
        [...docs].map(([id, d]) => ({ collection: collectionOf(p), id, doc: d.doc, position: d.position })),
        [],
      );
    }
  }

  beforeEach(async () => {
    readStore = openSqliteReadStore({ path: ':memory:' });
    blobs = await tempBlobStore();
    tree = bundleTree();
    query = createTxProofQuery({ readStore, blobStore: blobs.store });
  });
  afterEach(async () => {
    await readStore.close();
    await blobs.dispose();
  });

  it('lists exactly the chunks holding the item, each accepted by arweave-js validatePath', async () => {
    await saveTree(blobs.store, PLAN, tree);
    await given(story(tree));
    const proof = (await query(LARGE as DataItemId))!;
    const itemOffset = HEADER + sizes[SMALL]!;
    expect(proof).to.deep.include({ id: LARGE, rootTransactionId: TX, dataSize: TOTAL, itemOffset, itemSize: sizes[LARGE], block: null });
    const chunks = allChunks(proof);
    // the item starts in chunk 0 and ends in chunk 200
    expect(chunks.map((c) => c.offset)).to.deep.equal([...Array(201).keys()].map((i) => Math.min(TOTAL, (i + 1) * 256 * KiB) - 1));
    expect(proof.chunkCount).to.equal(201);
    for (const { offset, dataPath } of chunks) {
      const result = await validatePath(tree.dataRoot, offset, 0, TOTAL, Buffer.from(dataPath, 'base64url'));
      expect(result, `chunk ending at ${offset}`).to.include({ rightBound: offset + 1 });
    }
    expect(allChunks((await query(SMALL as DataItemId))!).map((c) => c.offset)).to.deep.equal([256 * KiB - 1]);
  });

  it("proves a nested item at its root's offset plus its own in the root", async () => {
    await saveTree(blobs.store, PLAN, tree);
    await given(story(tree));
    const proof = (await query(NESTED as DataItemId))!;
    expect(proof).to.deep.include({ id: NESTED, rootTransactionId: TX, itemOffset: HEADER + 1000, itemSize: 90 });
    expect(allChunks(proof).map((c) => c.offset)).to.deep.equal([256 * KiB - 1]);
  });

  it('has no proof before the root transaction is signed, for a damaged item, nor without a kept tree', async () => {
    await saveTree(blobs.store, PLAN, tree);
    const events = story(tree);
    await given(events.slice(0, -1));
    expect(await query(LARGE as DataItemId)).to.equal(undefined);
    await given([...events, { type: 'DataItemDamaged', data: { id: SMALL, blobKey: `items/${SMALL}`, found: 'missing', planId: PLAN, timestamp: AT } }]);
    expect(await query(SMALL as DataItemId)).to.equal(undefined);
    expect(await query(LARGE as DataItemId)).to.not.equal(undefined);
    await blobs.store.delete(treeBlobKey(PLAN));
    // a new query: the tree of this plan is not cached
    expect(await createTxProofQuery({ readStore, blobStore: blobs.store })(LARGE as DataItemId)).to.equal(undefined);
  });

  it('refuses a kept tree whose root is not the one the transaction was signed with', async () => {
    const other = new HashList();
    other.push(createHash('sha256').update('other').digest(), TOTAL);
    await saveTree(blobs.store, PLAN, new DataTree(other));
    await given(story(tree));
    const root = Buffer.from(tree.dataRoot).toString('base64url');
    await query(LARGE as DataItemId).then(
      () => expect.fail('a proof from another tree'),
      (error: Error) => expect(error.message).to.contain(`its transaction was signed with ${root} over ${TOTAL}`),
    );
  });

  /** the proof route alone on port 0, its readers paced by `pace` */
  async function proofServer(pace?: PaceWatch): Promise<{ url: string; server: Server }> {
    const router = Router();
    serveTxProof(router, query, pace);
    const app = express()
      .use(router)
      .use(errorHandler(() => {}));
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  it('cuts a client that stops reading a long proof, as a slow reader of a payload is cut', async () => {
    // an 8 GiB item's 32,769 paths (some 71 MB of JSON): more than a loopback connection's buffers
    // take unread (Linux lets a receive buffer grow to 32 MiB)
    const hashed = new HashList();
    const size = 8 * 1024 * 1024 * KiB;
    for (let i = 0; i * 256 * KiB < size; i++) hashed.push(createHash('sha256').update(`chunk ${i}`).digest(), Math.min(size, (i + 1) * 256 * KiB));
    tree = new DataTree(hashed);
    await saveTree(blobs.store, PLAN, tree);
    await given(story(tree));
    const pace = createPaceWatch({ minBytesPerSecond: 1024 * 1024, graceMs: 100, windowMs: 200 });
    const { url, server } = await proofServer(pace);
    try {
      let received = 0;
      const req = request(`${url}/tx/${LARGE}/proof`, (res) => {
        expect(res.statusCode).to.equal(200);
        // takes the first bytes, then nothing more
        res.once('data', (chunk: Buffer) => {
          received += chunk.length;
          res.pause();
        });
      });
      req.on('error', () => {});
      req.end();
      await eventually(
        () => received,
        (n) => n > 0,
        'the first bytes of the proof',
      );
      // the service lets the connection go (what it had sent stays in the kernel's buffers: the
      // client, reading nothing, does not see the end)
      const connections = () => new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
      await eventually(connections, (n) => n === 0, 'the stalled reader cut', 30_000);
      req.destroy();
    } finally {
      pace.stop();
      server.close();
    }
  });

  it('sends a proof of many chunks as one JSON document, written as it is made', async () => {
    await saveTree(blobs.store, PLAN, tree);
    await given(story(tree));
    const router = Router();
    serveTxProof(router, query);
    const app = express()
      .use(router)
      .use(errorHandler(() => {}));
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await fetch(`${url}/tx/${LARGE}/proof`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      // not mined yet: its block is to come
      expect(res.headers.get('cache-control')).to.equal('public, max-age=15');
      const { chunks: _, ...expected } = (await query(LARGE as DataItemId))!;
      const { chunkCount, ...head } = expected;
      expect(await res.json()).to.deep.equal({ ...head, chunks: allChunks((await query(LARGE as DataItemId))!) });
      expect(chunkCount).to.equal(201);
      const unknown = await fetch(`${url}/tx/${itemId(9)}/proof`);
      expect([unknown.status, await unknown.text()]).to.deep.equal([404, "TX doesn't exist"]);
    } finally {
      server.close();
    }
  });
});

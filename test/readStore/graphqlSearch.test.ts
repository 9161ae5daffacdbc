import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { execute, graphql, parse } from 'graphql';
import type { DomainEvent } from '../../src/domain/events.js';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import type { ItemDataQueries } from '../../src/queries/itemData.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { openMongoReadStore } from '../../src/adapters/mongo/readStore.js';
import { projectBatch } from '../../projections/projectBatch.js';
import { WriteBack } from '../../projections/writeBack.js';
import { collectionOf } from '../../projections/definition.js';
import { graphqlItemsProjection } from '../../projections/graphqlItems.js';
import { createHandler } from 'graphql-http';
import { createGraphqlQueries, graphqlHandler, type GraphqlLimits } from '../../src/queries/graphql/index.js';
import { fastExecute, serializedAnswer, walksItself } from '../../src/queries/graphql/execute.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { mongoTarget, testDatabases } from '../mongo/server.js';

/**
 * The GraphQL read model projected into each read store and searched through the schema's resolvers
 * (graphql-js `graphql()`, no HTTP): order, cursors, filters and blocks as gateways answer them.
 */

const [a, b, c, d, root, nested] = [1, 2, 3, 4, 5, 6].map(itemId) as [string, string, string, string, string, string];
const tagged = (id: string, owner: string, tags: { name: string; value: string }[], extra: object = {}) => dataItemAccepted(id, { owner, tags, ...extra });
const permanent = (planId: string, txId: string, itemIds: string[], height: number): DomainEvent => ({
  type: 'BundlePermanent',
  data: {
    planId,
    txId,
    itemIds,
    blockHeight: height,
    confirmations: 10,
    timestamp: 9,
    block: { id: `block-${height}`, timestamp: 1_700_000_000 + height, previous: `block-${height - 1}` },
  },
});
/** a, b, c, d accepted in that order; a and c mined at 100, b at 101; d pending; root holds a nested item */
const story: DomainEvent[] = [
  tagged(a, 'alice', [{ name: 'App', value: 'x' }]),
  tagged(
    b,
    'bob',
    [
      { name: 'App', value: 'x' },
      { name: 'Kind', value: 'k1' },
    ],
    { target: 'carol', anchor: 'an-anchor' },
  ),
  tagged(c, 'alice', [{ name: 'App', value: 'y' }]),
  tagged(d, 'alice', [
    { name: 'App', value: 'x' },
    { name: 'Kind', value: 'k2' },
  ]),
  tagged(root, 'alice', [{ name: 'Bundle-Format', value: 'binary' }]),
  {
    type: 'NestedItemsIndexed',
    data: {
      id: root,
      items: [
        {
          id: nested,
          parentId: root,
          startOffsetInParentDataItemPayload: 96,
          offsetInRootItem: 1140,
          rawContentLength: 500,
          payloadDataStart: 400,
          payloadContentType: 'application/octet-stream',
          depth: 1,
          owner: 'dave',
          signatureType: 1,
          tags: [{ name: 'App', value: 'z' }],
        },
      ],
      timestamp: 5,
      verified: true,
    },
  },
  permanent('p1', 'bundle-1', [a, c], 100),
  permanent('p2', 'bundle-2', [b, root], 101),
];

const recorded = (events: DomainEvent[]): RecordedEvent[] =>
  events.map(
    (e, i) =>
      ({ position: BigInt(i + 1), type: e.type, data: e.data, metadata: {}, streamId: 's', revision: BigInt(i), id: `e${i}` }) as unknown as RecordedEvent,
  );

const noBlobs: ItemDataQueries = { itemPlace: async () => undefined, readPayload: async () => undefined, header: async () => undefined };

function searches(name: string, open: () => Promise<{ store: ReadStore; cleanup(): Promise<void> }>) {
  describe(`GraphQL search over the ${name} read store`, function () {
    let store: ReadStore;
    let cleanup: () => Promise<void>;
    const target = () => ({ projection: graphqlItemsProjection, collection: collectionOf(graphqlItemsProjection), checkpoint: 'graphql', after: undefined });
    const ask = async (source: string, limits: Partial<GraphqlLimits> = {}, monotonic = () => performance.now()) => {
      const { schema, rootValue, context } = createGraphqlQueries({ readStore: store, itemData: noBlobs, limits });
      const result = await graphql({ schema, rootValue, source, contextValue: context(monotonic) });
      return JSON.parse(JSON.stringify(result)) as { data?: any; errors?: { message: string }[] };
    };
    const idsOf = async (args: string) =>
      ((await ask(`{ transactions(${args}) { edges { node { id } } } }`)).data.transactions.edges as { node: { id: string } }[]).map((e) => e.node.id);

    before(async () => {
      ({ store, cleanup } = await open());
      await projectBatch(store, [target()], recorded(story.slice(0, 6)));
      await projectBatch(store, [{ ...target(), after: 6n }], recorded(story).slice(6));
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    it("orders pending items first under HEIGHT_DESC, then by height, newest first, a nested item by its root's; HEIGHT_ASC the reverse", async () => {
      expect(await idsOf('first: 100')).to.deep.equal([d, nested, root, b, c, a]);
      expect(await idsOf('first: 100, sort: HEIGHT_ASC')).to.deep.equal([a, c, b, root, nested, d]);
    });

    it('resumes exactly after a cursor, and says whether another page follows', async () => {
      const page = async (after: string) =>
        (await ask(`{ transactions(first: 2, owners: ["alice"]${after}) { pageInfo { hasNextPage } edges { cursor node { id } } } }`)).data.transactions;
      const one = await page('');
      expect(one.edges.map((e: any) => e.node.id)).to.deep.equal([d, root]);
      expect(one.pageInfo.hasNextPage).to.equal(true);
      const two = await page(`, after: "${one.edges[1].cursor}"`);
      expect(two.edges.map((e: any) => e.node.id)).to.deep.equal([c, a]);
      expect(two.pageInfo.hasNextPage).to.equal(false);
    });

    it('filters by tag values (any of them), several tags, owner, recipient, bundledIn and block range', async () => {
      expect(await idsOf('tags: [{ name: "App", values: ["x", "z"] }]')).to.deep.equal([d, nested, b, a]);
      expect(await idsOf('tags: [{ name: "App", values: ["x"] }, { name: "Kind", values: ["k1", "k2"] }]')).to.deep.equal([d, b]);
      expect(await idsOf('recipients: ["carol"]')).to.deep.equal([b]);
      expect(await idsOf('bundledIn: ["bundle-1"]')).to.deep.equal([c, a]);
      expect(await idsOf(`bundledIn: ["${root}"]`)).to.deep.equal([nested]);
      expect(await idsOf('block: { min: 101 }')).to.deep.equal([nested, root, b]);
      expect(await idsOf('block: { min: 101, max: 101 }, owners: ["dave"]')).to.deep.equal([nested]);
      expect(await idsOf('block: { max: 100 }, owners: ["alice"]')).to.deep.equal([c, a]);
      expect(await idsOf(`ids: ["${a}", "${d}", "${itemId(99)}"]`)).to.deep.equal([d, a]);
    });

    it("fills a mined item's block and bundle, and a nested item's block from its root, its bundle being its parent", async () => {
      const { data } = await ask(`{ a: transaction(id: "${b}") { recipient anchor block { id height timestamp previous } bundledIn { id } tags { name value } }
        n: transaction(id: "${nested}") { owner { address } block { id height } bundledIn { id } parent { id } data { size type } }
        p: transaction(id: "${d}") { block { id } bundledIn { id } } }`);
      expect(data).to.deep.equal({
        a: {
          recipient: 'carol',
          anchor: 'an-anchor',
          block: { id: 'block-101', height: 101, timestamp: 1_700_000_101, previous: 'block-100' },
          bundledIn: { id: 'bundle-2' },
          tags: [
            { name: 'App', value: 'x' },
            { name: 'Kind', value: 'k1' },
          ],
        },
        n: {
          owner: { address: 'dave' },
          block: { id: 'block-101', height: 101 },
          bundledIn: { id: root },
          parent: { id: root },
          data: { size: '100', type: null },
        },
        p: { block: null, bundledIn: null },
      });
    });

    it('refuses a search that reads more non-matching items than its budget, and one whose time is up', async () => {
      // the tag is scanned (App=x: d, b, a), the owner checked on each: none is nobody's
      const broad = await ask('{ transactions(owners: ["nobody"], tags: [{ name: "App", values: ["x"] }]) { edges { cursor } } }', { maxExamined: 2 });
      expect(broad.errors?.map((e) => e.message)).to.deep.equal(['the query examined over 2 items: narrow its filters']);
      expect(
        (await ask('{ transactions(owners: ["nobody"], tags: [{ name: "App", values: ["x"] }]) { edges { cursor } } }', { maxExamined: 3 })).data,
      ).to.deep.equal({
        transactions: { edges: [] },
      });
      let now = 0;
      const late = await ask('{ transactions(owners: ["alice"]) { edges { cursor } } }', { timeBudgetMs: 1000 }, () => (now += 600));
      expect(late.errors?.map((e) => e.message)).to.deep.equal(['the query took over 1000 ms: narrow it']);
    });

    it('changes nothing when the same events are projected again, and a rebuild from position 0 answers the same', async () => {
      const before = await idsOf('first: 100');
      await projectBatch(store, [{ ...target(), after: undefined, checkpoint: 'graphql-again' }], recorded(story));
      expect(await idsOf('first: 100')).to.deep.equal(before);
      const rebuilt = { ...target(), collection: `${collectionOf(graphqlItemsProjection)}~rebuild`, checkpoint: 'graphql~rebuild' };
      // as `npm run rebuild` writes: through a WriteBack, flushed once
      const held = new WriteBack(store);
      await projectBatch(held, [rebuilt], recorded(story));
      await held.flush();
      expect(
        await store.promote(
          { collection: rebuilt.collection, checkpoint: rebuilt.checkpoint },
          { collection: collectionOf(graphqlItemsProjection), checkpoint: 'graphql' },
        ),
      ).to.equal(true);
      expect(await idsOf('first: 100')).to.deep.equal(before);
      expect(await idsOf('tags: [{ name: "App", values: ["x", "z"] }]')).to.deep.equal([d, nested, b, a]);
    });

    it('answers through fastExecute exactly as graphql-js execute does: data, fragments, aliases, nulls and errors', async () => {
      const { schema, rootValue, context } = createGraphqlQueries({ readStore: store, itemData: noBlobs, limits: {} });
      const node = `id anchor signature signatureType recipient owner { address key } fee { winston ar } quantity { winston ar }
        data { size type } tags { name value } block { id timestamp height previous } parent { id } bundledIn { id }`;
      // a query met by an error is executed again by graphql-js, its root fields' answers given again: the store is asked once
      const cases: { source: string; variables?: Record<string, unknown>; walked: boolean; calls: number }[] = [
        { source: `{ transactions(first: 100) { pageInfo { hasNextPage } edges { cursor node { ${node} } } } }`, walked: true, calls: 1 },
        {
          source: `query Q($v: [String!]!) { a: transactions(owners: $v, first: 2, sort: HEIGHT_ASC) { ...page } t: transaction(id: "${b}") { __typename ... on Transaction { i: id tags { value } } }
            none: transaction(id: "${itemId(99)}") { id } } fragment page on TransactionConnection { __typename edges { node { id owner { address } } } }`,
          variables: { v: ['alice'] },
          walked: true,
          calls: 1,
        },
        { source: '{ transactions(first: 101) { edges { cursor } } }', walked: true, calls: 1 },
        { source: '{ transactions(after: "not-a-cursor") { edges { cursor } } ok: transaction(id: "x") { id } }', walked: true, calls: 1 },
        { source: '{ transactions @include(if: true) { edges { cursor } } }', walked: false, calls: 1 },
        { source: 'query($v: [String!]!) { transactions(owners: $v) { edges { cursor } } }', variables: {}, walked: true, calls: 0 },
        { source: '{ __schema { queryType { name } } }', walked: false, calls: 0 },
      ];
      for (const { source, variables, walked, calls } of cases) {
        const args = { schema, document: parse(source), rootValue, ...(variables ? { variableValues: variables } : {}) };
        const expected = await execute({ ...args, contextValue: context(() => performance.now()) });
        let asked = 0;
        const counted = Object.assign(Object.create(rootValue), {
          transactions: (...a: Parameters<typeof rootValue.transactions>) => (asked++, rootValue.transactions(...a)),
        });
        const answered = await fastExecute({ ...args, rootValue: counted, contextValue: context(() => performance.now()) });
        expect(JSON.stringify(answered), source).to.equal(JSON.stringify(expected));
        // the text written while walking (what the route sends) is the text JSON.stringify writes of graphql-js's answer
        expect(serializedAnswer(answered), source).to.equal(walked && !expected.errors ? JSON.stringify(expected) : undefined);
        expect(walksItself(args), source).to.equal(walked);
        expect(asked, source).to.equal(calls);
      }
    });

    it('answers over HTTP as graphql-http does with graphql-js execute: status, headers and body, for each Accept', async () => {
      const queries = createGraphqlQueries({ readStore: store, itemData: noBlobs, limits: {} });
      const ours = graphqlHandler<undefined>(
        queries,
        () => performance.now(),
        () => undefined,
      );
      // graphql-http as it comes (its own serialization, with its replacer), on graphql-js's execute
      const plain = createHandler<undefined, undefined, ReturnType<typeof queries.context>>({
        schema: queries.schema,
        rootValue: queries.rootValue,
        execute,
        context: () => queries.context(() => performance.now()),
      });
      const page =
        '{ transactions(first: 100) { pageInfo { hasNextPage } edges { cursor node { id owner { address key } signature tags { name value } block { height } } } } }';
      const sources = [page, '{ transactions(after: "not-a-cursor") { edges { cursor } } }', '{ transactions @include(if: true) { edges { cursor } } }'];
      const accepts = [
        null,
        'application/json',
        'application/graphql-response+json',
        'text/html, application/*;charset=utf8',
        'application/json; charset=latin1',
        'text/html',
      ];
      for (const source of sources) {
        for (const accept of accepts) {
          const request = () => ({
            url: '/graphql',
            method: 'POST',
            headers: { get: (key: string) => (key === 'content-type' ? 'application/json' : key === 'accept' ? accept : null) },
            body: JSON.stringify({ query: source }),
            raw: undefined,
            context: undefined,
          });
          expect(await ours(request()), `${source} (Accept: ${accept})`).to.deep.equal(await plain(request()));
        }
      }
    });

    it("gives nested items their root's block however events are batched, indexed before or after it is mined", async () => {
      // one event per batch, through a rebuild's WriteBack: root2 mined with its nested index flushed (found in
      // the store), root4 with its index held, not flushed; root3 mined before it is indexed (its items take
      // the block as they are found)
      const [root2, inner2, root3, inner3, root4, inner4] = [20, 21, 30, 31, 40, 41].map(itemId) as string[] as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const indexed = (rootId: string, id: string): DomainEvent => {
        const part = (story[5] as Extract<DomainEvent, { type: 'NestedItemsIndexed' }>).data;
        return { type: 'NestedItemsIndexed', data: { ...part, id: rootId, items: [{ ...part.items[0]!, id, parentId: rootId, owner: 'erin' }] } };
      };
      const more: DomainEvent[] = [
        tagged(root2, 'erin', []),
        tagged(root3, 'erin', []),
        tagged(root4, 'erin', []),
        indexed(root2, inner2),
        permanent('p3', 'bundle-3', [root3], 103),
        permanent('p4', 'bundle-4', [root2], 104),
        indexed(root4, inner4),
        permanent('p6', 'bundle-6', [root4], 105),
        indexed(root3, inner3),
      ];
      const events = recorded([...story, ...more]).slice(story.length);
      const held = new WriteBack(store);
      let after = BigInt(story.length);
      for (const event of events) {
        after = await projectBatch(held, [{ ...target(), after }], [event]);
        if (event.type === 'NestedItemsIndexed' && (event.data as { id: string }).id === root2) await held.flush();
      }
      await held.flush();
      expect(await idsOf('owners: ["erin"]')).to.deep.equal([inner4, root4, inner2, root2, inner3, root3]);
      expect(await idsOf('owners: ["erin"], block: { min: 105, max: 105 }')).to.deep.equal([inner4, root4]);
      expect(await idsOf('owners: ["erin"], block: { min: 104, max: 104 }')).to.deep.equal([inner2, root2]);
      expect(await idsOf('owners: ["erin"], block: { min: 103, max: 103 }')).to.deep.equal([inner3, root3]);
    });

    it('answers block null for a block the gateway named no hash, time or parent for, and sorts it by its height', async () => {
      const [lone, inner] = [50, 51].map(itemId) as [string, string];
      const nameless = { ...permanent('p5', 'bundle-5', [lone], 105) } as Extract<DomainEvent, { type: 'BundlePermanent' }>;
      const { block: _, ...data } = nameless.data;
      const part = (story[5] as Extract<DomainEvent, { type: 'NestedItemsIndexed' }>).data;
      const more: DomainEvent[] = [
        tagged(lone, 'fay', []),
        { type: 'NestedItemsIndexed', data: { ...part, id: lone, items: [{ ...part.items[0]!, id: inner, parentId: lone, owner: 'fay' }] } },
        { type: 'BundlePermanent', data },
      ];
      const after = BigInt(story.length + 9);
      await projectBatch(store, [{ ...target(), after }], recorded([...story, ...Array<DomainEvent>(9).fill(story[0]!), ...more]).slice(Number(after)));
      const { data: found, errors } = await ask(
        `{ transactions(owners: ["fay"], block: { min: 105 }) { edges { node { id block { id height timestamp previous } bundledIn { id } } } } }`,
      );
      expect(found.transactions.edges.map((e: any) => e.node)).to.deep.equal([
        { id: inner, block: null, bundledIn: { id: lone } },
        { id: lone, block: null, bundledIn: { id: 'bundle-5' } },
      ]);
      expect(errors).to.equal(undefined);
    });

    it('leaves out a held item and the items nested in a held root, by id, tag, owner and bundle, and finds them again once released, however batched', async () => {
      const [lone, heldRoot, inner, lateRoot, lateInner] = [60, 61, 62, 63, 64].map(itemId) as [string, string, string, string, string];
      const hold = (id: string): DomainEvent => ({ type: 'DataItemQuarantined', data: { id, by: 'ops', reason: 'abuse report', timestamp: 7 } });
      const release = (id: string): DomainEvent => ({ type: 'DataItemReleased', data: { id, by: 'ops', reason: 'cleared', timestamp: 8 } });
      const part = (story[5] as Extract<DomainEvent, { type: 'NestedItemsIndexed' }>).data;
      const indexed = (rootId: string, id: string): DomainEvent => ({
        type: 'NestedItemsIndexed',
        data: { ...part, id: rootId, items: [{ ...part.items[0]!, id, parentId: rootId, owner: 'hal', tags: [{ name: 'Case', value: 'held' }] }] },
      });
      const app = [{ name: 'Case', value: 'held' }];
      // lateRoot is held before its nested index is written: its item is held from the start
      const holding: DomainEvent[] = [
        tagged(lone, 'gina', app),
        tagged(heldRoot, 'gina', app),
        tagged(lateRoot, 'gina', app),
        indexed(heldRoot, inner),
        hold(lone),
        hold(heldRoot),
        hold(lateRoot),
        indexed(lateRoot, lateInner),
      ];
      const releasing = [release(lone), release(heldRoot), release(lateRoot)];
      const all = recorded([...holding, ...releasing]);
      const searches = [
        'owners: ["gina", "hal"]',
        'tags: [{ name: "Case", values: ["held"] }]',
        `ids: ["${lone}", "${heldRoot}", "${inner}", "${lateRoot}", "${lateInner}"]`,
        `bundledIn: ["${heldRoot}", "${lateRoot}"]`,
        'first: 100',
      ];
      const answers = async (on: ReadStore) => {
        // no item examined and passed over: a held item is under no filter's key, so it costs a search nothing
        const { schema, rootValue, context } = createGraphqlQueries({ readStore: on, itemData: noBlobs, limits: { maxExamined: 0 } });
        const run = async (source: string) =>
          JSON.parse(JSON.stringify(await graphql({ schema, rootValue, source, contextValue: context(() => performance.now()) })));
        const found: Record<string, string[]> = {};
        for (const args of searches)
          found[args] = (await run(`{ transactions(${args}) { edges { node { id } } } }`)).data.transactions.edges.map((e: any) => e.node.id);
        const byId = (await run(`{ ${[lone, heldRoot, inner, lateRoot, lateInner].map((id, i) => `t${i}: transaction(id: "${id}") { id }`).join(' ')} }`)).data;
        found.byId = Object.values(byId as Record<string, { id: string } | null>).map((t) => t?.id ?? 'null');
        return found;
      };
      // at once, into a fresh store; and one event per batch through a rebuild's WriteBack, flushed after the first hold
      const fresh = await open();
      const batched = await open();
      try {
        const mine = { ...target(), checkpoint: 'graphql-holds' };
        const held = new WriteBack(batched.store);
        let after: bigint | undefined;
        const oneByOne = async (events: RecordedEvent[]) => {
          for (const event of events) {
            after = await projectBatch(held, [{ ...mine, after }], [event]);
            if (event.type === 'DataItemQuarantined') await held.flush();
          }
          await held.flush();
        };
        await projectBatch(fresh.store, [mine], all.slice(0, holding.length));
        await oneByOne(all.slice(0, holding.length));
        const none = { byId: ['null', 'null', 'null', 'null', 'null'], ...Object.fromEntries(searches.map((args) => [args, []])) };
        expect(await answers(fresh.store)).to.deep.equal(none);
        expect(await answers(batched.store)).to.deep.equal(none);

        await projectBatch(fresh.store, [{ ...mine, after: BigInt(holding.length) }], all.slice(holding.length));
        await oneByOne(all.slice(holding.length));
        const everyone = [lateInner, inner, lateRoot, heldRoot, lone];
        const found = {
          'owners: ["gina", "hal"]': everyone,
          'tags: [{ name: "Case", values: ["held"] }]': everyone,
          [`ids: ["${lone}", "${heldRoot}", "${inner}", "${lateRoot}", "${lateInner}"]`]: everyone,
          [`bundledIn: ["${heldRoot}", "${lateRoot}"]`]: [lateInner, inner],
          'first: 100': everyone,
          byId: [lone, heldRoot, inner, lateRoot, lateInner],
        };
        expect(await answers(fresh.store)).to.deep.equal(found);
        expect(await answers(batched.store)).to.deep.equal(found);
      } finally {
        for (const s of [fresh, batched]) {
          await s.store.close();
          await s.cleanup();
        }
      }
    });
  });
}

searches('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'graphql-search-'));
  return { store: openSqliteReadStore({ path: join(dir, 'read.db') }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe(`MongoDB on ${mongoTarget}`, function () {
  const databases = testDatabases();
  before(() => databases.start());
  after(() => databases.close());
  searches('MongoDB', async () => {
    const database = databases.fresh();
    return { store: await openMongoReadStore({ client: databases.client(), database }), cleanup: () => databases.drop(database) };
  });
});

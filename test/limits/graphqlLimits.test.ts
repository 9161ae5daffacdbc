import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { seededRandom } from '../support/seededRandom.js';
import { DEFAULT_GRAPHQL_LIMITS } from '../../src/queries/graphql/limits.js';

/**
 * Hostile GraphQL queries get a GraphQL error (`{ errors: [...] }`, CONTRACT.md section 10) naming the
 * limit they passed (docs/graphql.md), and the service keeps answering meanwhile.
 */

interface Answer {
  status: number;
  body: { data?: unknown; errors?: { message: string }[] };
}

describe('GraphQL limits against hostile queries', function () {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const post = async (body: unknown): Promise<Answer> => {
    const res = await fetch(`${service.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  const messageOf = (answer: Answer) => {
    expect(answer.body.data ?? null, JSON.stringify(answer.body)).to.equal(null);
    expect(answer.body.errors, JSON.stringify(answer.body)).to.have.length.greaterThan(0);
    return answer.body.errors![0]!.message;
  };

  it('refuses first over 100 and a negative first, naming the limit', async () => {
    const huge = await post({ query: '{ transactions(first: 100000000) { edges { node { id } } } }' });
    expect(huge.status).to.equal(200);
    expect(messageOf(huge)).to.equal('first is 100000000, over the maximum of 100');
    expect(messageOf(await post({ query: '{ transactions(first: -1) { edges { node { id } } } }' }))).to.equal('first must be a whole number from 0 to 100');
  });

  it('refuses thousands of tag values, given inline or as variables, and too many tag filters', async () => {
    const values = Array.from({ length: 5000 }, (_, i) => `v${i}`);
    const asVariables = await post({
      query: 'query($v: [String!]!) { transactions(tags: [{ name: "App", values: $v }]) { edges { node { id } } } }',
      variables: { v: values },
    });
    expect(messageOf(asVariables)).to.equal('tag "App" has 5000 values, over the maximum of 100');
    const inline = await post({
      query: `{ transactions(tags: [{ name: "App", values: ${JSON.stringify(values.slice(0, 1500))} }]) { edges { node { id } } } }`,
    });
    expect(messageOf(inline)).to.equal('tag "App" has 1500 values, over the maximum of 100');
    const longer = await post({
      query: `{ transactions(tags: [{ name: "App", values: ${JSON.stringify(values.slice(0, 3000))} }]) { edges { node { id } } } }`,
    });
    expect(messageOf(longer)).to.equal(`the query is ${inlineLength(3000)} characters long, over the maximum of ${DEFAULT_GRAPHQL_LIMITS.maxQueryLength}`);
    const filters = Array.from({ length: 11 }, (_, i) => `{ name: "t${i}", values: ["x"] }`).join(' ');
    expect(messageOf(await post({ query: `{ transactions(tags: [${filters}]) { edges { node { id } } } }` }))).to.equal(
      'tags has 11 filters, over the maximum of 10',
    );
    const owners = JSON.stringify(Array.from({ length: 101 }, (_, i) => `o${i}`));
    expect(
      messageOf(await post({ query: 'query($o: [String!]) { transactions(owners: $o) { edges { node { id } } } }', variables: { o: JSON.parse(owners) } })),
    ).to.equal('owners has 101 entries, over the maximum of 100');
  });

  it('refuses deep nesting through fragments and introspection, and many aliases, and huge query text', async () => {
    let deep = '__typename';
    for (let i = 0; i < 20; i++) deep = `ofType { ${deep} }`;
    expect(messageOf(await post({ query: `{ __type(name: "Transaction") { ${deep} } }` }))).to.equal('the query nests deeper than 15 levels');
    // fragments that each spread the one below twice: 2^20 fields once expanded
    const fragments = Array.from({ length: 20 }, (_, i) => `fragment F${i} on Transaction { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const exponential = `{ transaction(id: "x") { ...F0 } } ${fragments} fragment F20 on Transaction { id }`;
    expect(messageOf(await post({ query: exponential }))).to.equal('the query selects over 500 fields');
    const aliases = Array.from({ length: 11 }, (_, i) => `a${i}: transactions { edges { node { id } } }`).join(' ');
    expect(messageOf(await post({ query: `{ ${aliases} }` }))).to.equal('the query asks 11 searches at once, over the maximum of 10');
    const manyAliases = Array.from({ length: 600 }, (_, i) => `i${i}: id`).join(' ');
    expect(messageOf(await post({ query: `{ transaction(id: "x") { ${manyAliases} } }` }))).to.equal('the query selects over 500 fields');
    const tokens = Array.from({ length: 5000 }, () => 'a').join(' ');
    expect(messageOf(await post({ query: `{ ${tokens} }` }))).to.equal('Syntax Error: Document contains more that 4000 tokens. Parsing aborted.');
    const huge = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ${'#'.repeat(100_000)} }` }),
    });
    expect(huge.status).to.equal(413);
    expect(await huge.json()).to.deep.equal({ errors: [{ message: 'the request body is over 65536 bytes, the most a GraphQL request may send' }] });
  });

  it('answers the standard introspection query (bounded, not refused)', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const answer = await post({ query: getIntrospectionQuery() });
    expect(answer.body.errors).to.equal(undefined);
    expect((answer.body.data as { __schema: { queryType: { name: string } } }).__schema.queryType).to.deep.equal({ name: 'Query', kind: 'OBJECT' });
  });

  it('refuses a cursor it never gave, and answers a query that is not GraphQL with a parse error', async () => {
    expect(messageOf(await post({ query: '{ transactions(after: "bm90LWEtY3Vyc29y") { edges { node { id } } } }' }))).to.equal(
      'cursor "bm90LWEtY3Vyc29y" is not one this service gave',
    );
    const garbage = await post({ query: '{{{{' });
    expect(garbage.status).to.equal(200);
    expect(messageOf(garbage)).to.match(/^Syntax Error/);
  });

  it('answers GET /info while a burst of random hostile queries is refused, each with a GraphQL error', async () => {
    const random = seededRandom(36);
    const shapes = [
      () => ({ query: `{ transactions(first: ${1000 + random.int(0, 1_000_000)}) { edges { node { id } } } }` }),
      () => ({ query: `{ ${Array.from({ length: 11 + random.int(0, 50) }, (_, i) => `a${i}: transactions { edges { cursor } }`).join(' ')} }` }),
      () => ({
        query: 'query($v: [String!]!) { transactions(tags: [{ name: "A", values: $v }]) { edges { cursor } } }',
        variables: { v: Array.from({ length: 101 + random.int(0, 3000) }, String) },
      }),
      () => ({ query: `{ __schema { types { ${'fields { type { ofType { '.repeat(8)}name${' } } }'.repeat(8)} } } }` }),
    ];
    const burst = Array.from({ length: 40 }, () => shapes[random.int(0, shapes.length - 1)]!());
    const answers = Promise.all(
      burst.map(async (body) => {
        const res = await fetch(`${service.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as Answer['body'] };
      }),
    );
    const info = await fetch(`${service.url}/info`);
    expect(info.status).to.equal(200);
    for (const answer of await answers) {
      // a client past its requests in flight is told to come back (429 with Retry-After), never stalled
      expect([200, 429]).to.include(answer.status);
      expect(answer.body.errors?.[0]?.message, JSON.stringify(answer.body)).to.be.a('string');
    }
  });
});

/** the length of the inline query of `n` tag values above */
const inlineLength = (n: number) =>
  `{ transactions(tags: [{ name: "App", values: ${JSON.stringify(Array.from({ length: n }, (_, i) => `v${i}`))} }]) { edges { node { id } } } }`.length;

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
const ownerAddress = (item: DataItem) => createHash('sha256').update(item.rawOwner).digest('base64url');

/**
 * GraphQL over HTTP leaves out what the operator holds (quarantine), as the read routes answer 451: a
 * held item and every item nested in a held root are found by no `transaction(id)` and no
 * `transactions(...)` search, and are found again once released.
 */
describe('quarantine and GraphQL (HTTP)', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService({ ADMIN_TOKEN });
  });
  after(() => service.close());

  const admin = (method: 'PUT' | 'DELETE', id: string, reason: string) =>
    fetch(`${service.url}/admin/items/${id}/quarantine`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'ops', reason }),
    });
  const ask = async (query: string) => {
    const res = await fetch(`${service.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { data: Record<string, any>; errors?: unknown };
    expect(body.errors).to.equal(undefined);
    return body.data;
  };
  const search = async (args: string) =>
    ((await ask(`{ transactions(${args}, first: 100) { edges { node { id } } } }`)).transactions.edges as { node: { id: string } }[])
      .map((e) => e.node.id)
      .sort();
  const byId = async (ids: string[]) => {
    const data = await ask(`{ ${ids.map((id, i) => `t${i}: transaction(id: "${id}") { id }`).join(' ')} }`);
    return ids.map((_, i) => (data[`t${i}`] as { id: string } | null)?.id ?? null);
  };

  it('finds a held item and the items nested in a held root by no id, tag or owner, and finds them again once released', async () => {
    const tag = { name: 'Case', value: `held-${Date.now()}` };
    const plain = await signedItem(signers.arweave(), 'held for a while', [tag]);
    const kept = await signedItem(signers.ethereum(), 'never held', [tag]);
    const nested = await twoLevels();
    for (const item of [plain, kept, nested.root])
      expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    await nestedIndexed(service, nested.root.id);
    const nestedIds = nested.expected.map((e) => e.id);
    const held = [plain.id, nested.root.id, ...nestedIds];
    const byTag = `tags: [{ name: "${tag.name}", values: ["${tag.value}"] }]`;
    const owners = new Set([plain, kept, nested.root, nested.first, nested.middle, nested.last, nested.inner1, nested.inner2].map(ownerAddress));
    const byOwner = `owners: ${JSON.stringify([...owners])}`;
    const everything = [...held, kept.id].sort();
    expect(await search(byOwner)).to.deep.equal(everything);

    expect((await admin('PUT', plain.id, 'legal notice')).status).to.equal(200);
    expect((await admin('PUT', nested.root.id, 'spam bundle')).status).to.equal(200);
    expect(await byId([...held, kept.id])).to.deep.equal([...held.map(() => null), kept.id]);
    expect(await search(byTag)).to.deep.equal([kept.id]);
    expect(await search(byOwner)).to.deep.equal([kept.id]);
    expect(await search(`bundledIn: ["${nested.root.id}", "${nested.middle.id}"]`)).to.deep.equal([]);
    expect(await search(`ids: ${JSON.stringify(held)}`)).to.deep.equal([]);

    expect((await admin('DELETE', plain.id, 'notice withdrawn')).status).to.equal(200);
    expect((await admin('DELETE', nested.root.id, 'reviewed')).status).to.equal(200);
    expect(await byId(held)).to.deep.equal(held);
    expect(await search(byTag)).to.deep.equal([plain.id, kept.id].sort());
    expect(await search(byOwner)).to.deep.equal(everything);
    expect(await search(`bundledIn: ["${nested.root.id}", "${nested.middle.id}"]`)).to.deep.equal(nestedIds.sort());
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { nativeAddress } from '../../src/verify/index.js';
import { verifyStatement } from '../../src/receipts/statementMessage.js';
import type { AccountStatement } from '../../src/queries/index.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { runScript } from '../support/runScript.js';

const RATE = 2n;
const meta = { correlationId: 'statement-test' };

/**
 * `GET /account/statement/:address`: an account credited twice and charged for three items (1,000,
 * 1,100 and 1,200 bytes at 2 winc a byte; items of at most 500 bytes free), its entries exact, its
 * pages, and its signature checked by `npm run verify-statement`.
 */
describe('signed account statement', function () {
  this.timeout(60_000);
  let service: TestService;
  let dir: string;
  let payer: string;
  let items: DataItem[];

  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: '500', PRICE_WINC_PER_BYTE: String(RATE) });
    dir = await mkdtemp(join(tmpdir(), 'statement-'));
    const signer = signers.ethereum();
    items = [];
    for (const size of [1_000, 1_100, 1_200]) items.push(await itemOfSize(signer, size));
    payer = nativeAddress(3, items[0]!.rawOwner);
    await service.accounts.execute({ type: 'Credit', data: { address: payer, winc: 5_000n, creditId: 'first', now: 1_000 } }, meta);
    // another account, whose entries sort right after the payer's: never on the payer's statement
    await service.accounts.execute({ type: 'Credit', data: { address: 'Z'.repeat(43), winc: 9n, creditId: 'other', now: 1_000 } }, meta);
    const { position } = await service.accounts.execute({ type: 'Credit', data: { address: payer, winc: 2_000n, creditId: 'second', now: 2_000 } }, meta);
    await service.projections.waitFor(position!, 10_000);
    for (const item of items) {
      const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
      await res.arrayBuffer();
      expect(res.status).to.equal(200);
    }
  });
  after(async () => {
    await service.close();
    await rm(dir, { recursive: true, force: true });
  });

  const statementOf = async (query = '', prefix = '') => {
    const res = await fetch(`${service.url}${prefix}/account/statement/${payer}${query}`);
    expect(res.status, await res.clone().text()).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    return (await res.json()) as AccountStatement;
  };
  // charges settled within one ms are ordered by their reservation (random): compared by item id
  const shape = (s: AccountStatement) => [
    ...s.entries.filter((e) => e.kind === 'credit').map(({ timestamp: _, ...e }) => e),
    ...s.entries
      .filter((e) => e.kind !== 'credit')
      .map(({ timestamp: _, ...e }) => e)
      .sort((a, b) => items.findIndex((i) => i.id === a.id) - items.findIndex((i) => i.id === b.id)),
  ];

  it('lists each credit and charge with its id, winc and item state, and the balance', async () => {
    const s = await statementOf();
    const pending = { status: 'CONFIRMED', info: 'new' };
    expect(shape(s)).to.deep.equal([
      { kind: 'credit', id: 'first', winc: '5000' },
      { kind: 'credit', id: 'second', winc: '2000' },
      { kind: 'charge', id: items[0]!.id, winc: '2000', item: pending },
      { kind: 'charge', id: items[1]!.id, winc: '2200', item: pending },
      { kind: 'charge', id: items[2]!.id, winc: '2400', item: pending },
    ]);
    expect(s.entries.slice(0, 2).map((e) => e.timestamp)).to.deep.equal([1_000, 2_000]);
    expect(s.balance).to.deep.equal({ winc: '400', creditedWinc: '7000', spentWinc: '6600', reservedWinc: '0' });
    expect(s.address).to.equal(payer);
    expect(s.nextCursor).to.equal(null);
    expect(verifyStatement(s, { address: service.walletAddress })).to.deep.equal({ valid: true });
  });

  it('pages exactly with limit and cursor, at the root and under /v1', async () => {
    const first = await statementOf('?limit=2', '/v1');
    expect(first.entries.map((e) => e.id)).to.deep.equal(['first', 'second']);
    const second = await statementOf(`?limit=2&cursor=${first.nextCursor}`);
    const all = (await statementOf()).entries.map((e) => e.id);
    expect(second.entries.map((e) => e.id)).to.deep.equal(all.slice(2, 4));
    expect(second.after).to.equal(first.nextCursor);
    const third = await statementOf(`?limit=2&cursor=${second.nextCursor}`);
    expect(third.entries.map((e) => e.id)).to.deep.equal(all.slice(4));
    expect([...all.slice(2)].sort()).to.deep.equal(items.map((i) => i.id).sort());
    expect(third.nextCursor).to.equal(null);
    // exactly a page's worth: no next page
    expect((await statementOf('?limit=5')).nextCursor).to.equal(null);
  });

  it('refuses a limit past 1000, a cursor of another account and an address of no shape', async () => {
    for (const query of ['?limit=1001', '?limit=0', '?limit=x', `?cursor=${Buffer.from(`${'Z'.repeat(43)}/1/x`).toString('base64url')}`]) {
      const res = await fetch(`${service.url}/account/statement/${payer}${query}`);
      expect([res.status, await res.text()], query).to.deep.equal([400, 'Invalid request']);
    }
    const res = await fetch(`${service.url}/account/statement/not-an-address`);
    expect([res.status, await res.text()]).to.deep.equal([400, 'Invalid address']);
  });

  it('keys the account canonically: a lower-case 0x address answers the checksummed account', async () => {
    const res = await fetch(`${service.url}/account/statement/${payer.toLowerCase()}`);
    const s = (await res.json()) as AccountStatement;
    expect([s.address, s.entries.length]).to.deep.equal([payer, 5]);
  });

  it('verifies with npm run verify-statement (exit 0); a tampered statement fails it (exit 1)', async () => {
    const s = await statementOf();
    const saved = join(dir, 'statement.json');
    await writeFile(saved, JSON.stringify(s, null, 2));
    const ok = await runScript('verifyStatement', [saved, '--service', service.url], {});
    expect([ok.code, ok.stdout.trim()], ok.stderr).to.deep.equal([
      0,
      `statement of ${payer} verifies: 5 entries, balance 400 winc, signed by the service wallet`,
    ]);

    const tampered = join(dir, 'tampered.json');
    await writeFile(tampered, JSON.stringify({ ...s, balance: { ...s.balance, winc: '4000' } }));
    const bad = await runScript('verifyStatement', [tampered, '--address', service.walletAddress], {});
    expect([bad.code, bad.stderr.trim()]).to.deep.equal([1, 'error: statement does not verify: the signature does not match the statement']);

    const otherKey = await runScript('verifyStatement', [saved, '--address', 'Q'.repeat(43)], {});
    expect(otherKey.code).to.equal(1);
    expect(otherKey.stderr).to.include(`not by the service wallet ${'Q'.repeat(43)}`);
  });
});

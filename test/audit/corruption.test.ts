import { expect } from 'chai';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { summaryText } from '../../src/audit/report.js';
import { BundleRepository } from '../../src/app/bundles.js';
import { bundleLayout } from '../../src/bundling/layout.js';
import type { SerializedAccount } from '../../src/domain/account/serialized.js';
import type { AccountRepository } from '../../src/app/accounts/accounts.js';
import { accountBalanceProjection, collectionOf } from '../../projections/index.js';
import type { TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { damageStoredBlob, loseStoredBlob } from '../support/storedBlob.js';
import { itemOfSize } from '../support/sizedItem.js';
import { auditOf, credit, ethAddress, kindsAndIds, meta, planQueued, runScript, startPricedService, uploaded } from './support.js';

/** Each test plants one kind of corruption in a fresh service holding a free item and a paid one. */
describe('npm run audit on corrupted stores', function () {
  this.timeout(60_000);
  let service: TestService;
  /** arweave-signed, under the free limit */
  let free: DataItem;
  /** ethereum-signed, 50000 winc paid by its owner */
  let paid: DataItem;
  let owner: string;

  beforeEach(async () => {
    service = await startPricedService();
    free = await itemOfSize(signers.arweave(), 1200);
    paid = await itemOfSize(signers.ethereum(), 5000);
    owner = ethAddress(paid);
    await credit(service, owner, 60_000n);
  });
  afterEach(() => service?.close());

  const plan = async (planId: string, items: { id: string; size: number }[], move?: (offsets: number[]) => number[]) => {
    const layout = bundleLayout(items);
    const offsets = layout.items.map((i) => i.offset);
    const moved = move ? move(offsets) : offsets;
    const planned = layout.items.map(({ id, size }, i) => ({ id, size, offset: moved[i]! }));
    const data = { planId, items: planned, headerSize: layout.headerSize, totalSize: layout.totalSize, now: Date.now() };
    await new BundleRepository(service.eventStore).execute({ type: 'Plan', data }, meta);
  };
  const sized = (item: DataItem) => ({ id: item.id, size: item.getRaw().length });

  it('reports a flipped byte in a blob as a digest mismatch and a signature that no longer verifies', async () => {
    await uploaded(service, free);
    await uploaded(service, paid);
    await damageStoredBlob(service.dataDir, `items/${free.id}`, (bytes) => {
      bytes[bytes.length - 1]! ^= 0x01;
      return bytes;
    });

    const { findings } = await auditOf(service);
    expect(kindsAndIds(findings)).to.deep.equal([
      { kind: 'blob-digest', id: free.id },
      { kind: 'item-signature', id: free.id },
    ]);
    expect(findings[1]!.detail).to.equal('bytes do not verify: signature of type 1 does not verify');
  });

  it('reports a deleted blob as missing', async () => {
    await uploaded(service, free);
    await uploaded(service, paid);
    await loseStoredBlob(service.dataDir, `items/${paid.id}`);

    const { findings } = await auditOf(service);
    expect(findings).to.deep.equal([{ kind: 'blob-missing', id: paid.id, detail: `no blob at items/${paid.id}` }]);
  });

  it('reports a receipt whose signature was tampered with in the event store', async () => {
    await uploaded(service, free);
    await uploaded(service, paid);
    const db = new Database(join(service.dataDir, 'events.db'));
    try {
      const row = db.prepare('SELECT position, data FROM events WHERE stream = ?').get(`dataItem-${paid.id}`) as { position: bigint; data: string };
      const data = JSON.parse(row.data);
      const signature: string = data.receipt.signature;
      data.receipt.signature = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(data), row.position);
    } finally {
      db.close();
    }

    const { findings } = await auditOf(service);
    expect(findings).to.deep.equal([{ kind: 'receipt-signature', id: paid.id, detail: 'receipt signature does not verify' }]);
  });

  it('reports an account whose balance document disagrees with its events', async () => {
    await uploaded(service, paid);
    const collection = collectionOf(accountBalanceProjection);
    const stored = (await service.readStore.get<SerializedAccount>(collection, owner))!;
    await service.readStore.commit([{ collection, id: owner, doc: { ...stored.doc, spent: '40000' }, position: stored.position }], []);

    const { findings } = await auditOf(service);
    expect(findings).to.deep.equal([{ kind: 'balance-mismatch', id: owner, detail: 'spent: read model 40000, events 50000' }]);
  });

  it('reports a plan whose offsets break the bundle layout', async () => {
    await uploaded(service, free);
    await uploaded(service, paid);
    await plan('brokenLayoutPlan', [sized(free), sized(paid)], ([a, b]) => [a!, b! + 1]);

    const { findings } = await auditOf(service);
    const expected = 32 + 64 * 2 + free.getRaw().length;
    expect(findings).to.deep.equal([
      { kind: 'bundle-layout', id: 'brokenLayoutPlan', detail: `item 1 (${paid.id}) at offset ${expected + 1}, expected ${expected}` },
    ]);
  });

  it('reports an item planned into a second bundle while the first is live', async () => {
    await uploaded(service, free);
    await uploaded(service, paid);
    const [first] = await planQueued(service);
    await plan('secondPlan', [sized(paid)]);

    const { findings } = await auditOf(service);
    expect(findings).to.deep.equal([{ kind: 'item-in-two-bundles', id: paid.id, detail: `planned in secondPlan while live in ${first}` }]);
  });

  it('reports a paid item whose reservation was released instead of settled', async () => {
    await uploaded(service, free);
    // the settlement is lost (a crash between the acceptance and the settle)...
    const accounts: AccountRepository = service.accounts;
    const execute = accounts.execute.bind(accounts);
    let reservationId: string | undefined;
    accounts.execute = async (command, metadata) => {
      if (command.type === 'Settle') {
        reservationId = command.data.reservationId;
        return { state: await accounts.read(command.data.address), events: [] };
      }
      return execute(command, metadata);
    };
    await uploaded(service, paid);
    accounts.execute = execute;
    // ...and the reservation is then released as if the item had never been accepted
    await accounts.execute({ type: 'Release', data: { address: owner, reservationId: reservationId!, reason: 'item never accepted', now: Date.now() } }, meta);

    const { findings } = await auditOf(service);
    expect(findings).to.deep.equal([
      {
        kind: 'settlement-missing',
        id: paid.id,
        detail: `reservation ${reservationId} on ${owner} released (item never accepted) after the item was accepted with it`,
      },
    ]);
  });

  it('exits 1 from the command line, a line per finding on stdout and their count on stderr', async () => {
    await uploaded(service, free);
    await loseStoredBlob(service.dataDir, `items/${free.id}`);
    // no WALLET_FILE, and the test service's wallet is not in its data directory: the signer is not compared
    const result = await runScript('audit', [], { DATA_DIR: service.dataDir });
    const { findings, summary } = await auditOf(service, { wallet: false });
    expect(result).to.deep.equal({
      code: 1,
      stdout: `blob-missing         ${free.id}  no blob at items/${free.id}\n${summaryText(summary)}\n`,
      stderr: 'error: the audit found 1 finding\n',
    });
    expect(findings).to.have.length(1);
    expect(summaryText(summary).split('\n').slice(2, 3)).to.deep.equal(['  receipts 1 (signer not compared: no service wallet found)']);
  });
});

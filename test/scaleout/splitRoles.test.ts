import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { runScript } from '../support/runScript.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { nativeAddress } from '../../src/verify/index.js';
import { eventually, leaseHolderPid, startScaleoutNode, type ScaleoutNode } from './support.js';

/**
 * The split deployment on the scale-out profile: two command processes, one query process, two
 * projectors and two bundlers (one active each, by lease), every one a client of the same EventStoreDB
 * node (the test double, in this process) and of the stores of `scaleoutStores()`. Uploads go to both
 * command processes, the chunks of one multi-part upload too, one paid item 50 times at once over both,
 * two items racing over both for one credit; the active projector and bundler are
 * killed halfway; everything ends permanent, read through the query process.
 */
describe('split roles in separate processes on the scale-out profile', function () {
  this.timeout(300_000);
  let dataDir: string;
  let arlocal: Arlocal;
  let esdb: ScaleoutNode;
  const processes: ServiceProcess[] = [];
  let diagnostics = () => '';

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'split-scaleout-'));
    arlocal = await startArlocal();
    esdb = await startScaleoutNode();
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop().catch(() => {})));
    await esdb?.close();
    await arlocal?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes uploads spread over two command processes to FINALIZED, one acceptance and one spend when they race each other', async () => {
    const shared = {
      ...esdb.env,
      DATA_DIR: dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
      GATEWAY_URL: arlocal.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      BUNDLE_MAX_WAIT_MS: '0',
      BUNDLER_INTERVAL_MS: '200',
      CONFIRMATIONS: '3',
      RECEIPT_SIGNER_WORKERS: '1',
      FREE_UPLOAD_LIMIT_BYTES: '1500',
      PRICE_WINC_PER_BYTE: '10',
    };
    const roles = ['commands', 'commands', 'queries', 'projector', 'projector', 'bundler', 'bundler'];
    const started = await Promise.all(roles.map((role) => startServiceProcess({ ...shared, ROLE: role })));
    processes.push(...started);
    diagnostics = () => '\n' + started.map((p, i) => `process ${i}: ${p.stderr()}`).join('\n');
    const [commandsA, commandsB, queries] = started as [ServiceProcess, ServiceProcess, ServiceProcess];
    await arlocal.mint((await (await fetch(`${queries.url}/info`)).json()).addresses.arweave, '100000000000000000');

    const singles = await Promise.all(Array.from({ length: 6 }, (_, i) => signedItem(i % 2 ? signers.ethereum() : signers.arweave(), `item ${i}`)));
    const answers = await Promise.all(
      singles.map((item, i) => fetch(`${(i % 2 ? commandsA : commandsB).url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })),
    );
    expect(
      answers.map((a) => a.status),
      diagnostics(),
    ).to.deep.equal([200, 200, 200, 200, 200, 200]);

    // one multi-part upload, its chunks over both command processes, finalized on one of them
    const big = await itemOfSize(signers.ethereum(), 40_000);
    const raw = big.getRaw();
    expect((await runScript('credit', [nativeAddress(3, big.rawOwner), '400000', '--id', 'split-big'], shared)).code).to.equal(0);
    const uploadId = await createUpload(commandsA.url);
    for (let offset = 0, i = 0; offset < raw.length; offset += 10_000, i++) {
      const res = await postChunk((i % 2 ? commandsA : commandsB).url, uploadId, offset, raw.subarray(offset, offset + 10_000));
      expect(res.status, `chunk ${offset}`).to.equal(200);
    }
    expect((await fetch(`${commandsB.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);

    // the same paid item 25 times at each command process at once: the node's expected revision alone
    // decides between the processes (each one's per-item lock only orders its own requests)
    const paid = await itemOfSize(signers.ethereum(), 3000);
    const owner = nativeAddress(3, paid.rawOwner);
    const credited = await runScript('credit', [owner, '60000', '--id', 'split-paid'], shared);
    expect(credited.code, credited.stderr).to.equal(0);
    const raced = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await fetch(`${(i % 2 ? commandsA : commandsB).url}/tx`, { method: 'POST', body: asBody(paid.getRaw()) });
        return { status: res.status, body: await res.text() };
      }),
    );
    expect(raced.map((r) => r.status).sort(), raced.map((r) => `${r.status} ${r.body.slice(0, 40)}`).join(' | ')).to.deep.equal([
      200,
      ...Array<number>(49).fill(202),
    ]);
    for (const r of raced) expect(JSON.parse(r.body)).to.deep.equal(JSON.parse(raced.find((x) => x.status === 200)!.body));
    expect(esdb.node.log.stream(`dataItem-${paid.id}`)!.map((e) => e.type)).to.deep.equal(['DataItemAccepted']);

    // two items of one owner whose credit covers one, one at each command process: one passes
    const signer = signers.ethereum();
    const [left, right] = [await itemOfSize(signer, 2000), await itemOfSize(signer, 2000)];
    const spender = nativeAddress(3, left.rawOwner);
    expect((await runScript('credit', [spender, '20000', '--id', 'split-one'], shared)).code).to.equal(0);
    const spent = await Promise.all([
      fetch(`${commandsA.url}/tx`, { method: 'POST', body: asBody(left.getRaw()) }),
      fetch(`${commandsB.url}/tx`, { method: 'POST', body: asBody(right.getRaw()) }),
    ]);
    expect(spent.map((r) => r.status).sort()).to.deep.equal([200, 402]);
    await Promise.all(spent.map((r) => r.arrayBuffer()));
    const winner = spent[0]!.status === 200 ? left : right;

    const items = [...singles, big, paid, winner];
    const statusOf = async (id: string) => (await fetch(`${queries.url}/tx/${id}/status`)).json().catch(() => ({}));
    const waitFor = <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string) =>
      eventually(read, done, what, 120_000).catch((error: Error) => Promise.reject(new Error(`${error.message}${diagnostics()}`)));
    for (const item of items)
      await waitFor(
        () => statusOf(item.id),
        (s) => s.info === 'pending' && !!s.bundleId,
        `status of ${item.id}`,
      );

    // the active projector and the active bundler die: the waiting ones take over their leases
    for (const lease of ['projector', 'bundler']) {
      const holder = await leaseHolderPid(shared, lease);
      const active = started.find((p) => p.process.pid === holder)!;
      expect(roles[started.indexOf(active)]).to.equal(lease);
      await active.kill();
    }
    // blocks keep coming while the waiting bundler takes over (one every fifth poll)
    let polls = 0;
    const minedStatusOf = async (id: string) => {
      if (polls++ % 5 === 0) await arlocal.mine(1);
      return statusOf(id);
    };
    for (const item of items) {
      const status = await waitFor(
        () => minedStatusOf(item.id),
        (s) => s.status === 'FINALIZED',
        `status of ${item.id}`,
      );
      expect(status.info).to.equal('permanent');
    }
    expect((await (await fetch(`${queries.url}/chunks/arweave/${uploadId}/status`)).json()).status).to.equal('FINALIZED');
    // every process wrote through BatchAppend to the one node
    expect(esdb.node.calls.append).to.equal(undefined);
    const balance = async (address: string) => (await fetch(`${queries.url}/v1/account/balance/${address}`)).json();
    expect(
      await waitFor(
        () => balance(owner),
        (b) => b.spentWinc === '30000',
        `balance of ${owner}`,
      ),
    ).to.include({ winc: '30000', reservedWinc: '0' });
    expect(
      await waitFor(
        () => balance(spender),
        (b) => b.spentWinc === '20000',
        `balance of ${spender}`,
      ),
    ).to.include({ winc: '0', reservedWinc: '0' });
  });
});

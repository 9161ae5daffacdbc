/**
 * The split deployment, written once and run per store profile (test/multiprocess/splitRoles.test.ts
 * on the embedded stores, test/scaleout/splitRoles.test.ts on EventStoreDB and MongoDB): two command
 * processes, one query process, two projectors and two bundlers (one active each, by lease), every
 * one a client of the same stores. Uploads go to both command processes, the chunks of one
 * multi-part upload too, one paid item 50 times at once over both, two items racing over both for
 * one credit; the active projector and bundler are killed halfway; everything ends permanent, read
 * through the query process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { startServiceProcess, type ServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { nativeAddress } from '../../src/verify/index.js';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from './arlocal.js';
import { eventually } from './eventually.js';
import { asBody, signedItem, signers } from './items.js';
import { createUpload, postChunk } from './multipart.js';
import { runScript } from './runScript.js';
import { itemOfSize } from './sizedItem.js';
import { openSse } from './sse.js';
import { SERVICE_WALLET_FILE } from './testService.js';

/** What differs between the store profiles: everything else is the scenario's. */
export interface SplitStores {
  /** the store settings of every process (beside DATA_DIR, which the scenario adds) */
  env: Record<string, string>;
  /** the types of the events of `stream`, read from the shared event store */
  streamTypes(stream: string, dataDir: string): Promise<string[]>;
  /** the bytes stored under `key` (`items/<id>`), where the profile can read them */
  storedBlob?(key: string, dataDir: string): Promise<Buffer | undefined>;
  /** checks of the profile's own, once everything is permanent */
  finally?(): void;
  close(): Promise<void>;
}

/**
 * The pid of the process holding lease `name` in the read store `env` configures (instance ids start
 * with the pid): the `leases` table of `<DATA_DIR>/read.db`, or the `leases` collection in MongoDB.
 */
export async function leaseHolderPid(env: Record<string, string>, name: string): Promise<number> {
  let holder: string;
  if (env.READ_STORE === 'mongo') {
    const client = await MongoClient.connect(env.MONGO_URL!);
    try {
      const lease = await client
        .db(env.MONGO_DATABASE ?? 'upload_service')
        .collection<{ _id: string; holder: string }>('leases')
        .findOne({ _id: name });
      holder = lease!.holder;
    } finally {
      await client.close();
    }
  } else {
    const db = new Database(join(env.DATA_DIR!, 'read.db'), { readonly: true });
    try {
      holder = (db.prepare('SELECT holder FROM leases WHERE name = ?').get(name) as { holder: string }).holder;
    } finally {
      db.close();
    }
  }
  return Number(holder.split('-')[0]);
}

/** The scenario's `describe`, on the stores `startStores` opens (once, before the processes start). */
export function splitRolesScenario(profile: string, startStores: () => Promise<SplitStores>): void {
  describe(`split roles in separate processes on the ${profile}`, function () {
    this.timeout(300_000);
    let dataDir: string;
    let arlocal: Arlocal;
    let stores: SplitStores | undefined;
    const processes: ServiceProcess[] = [];
    let diagnostics = () => '';

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'split-'));
      arlocal = await startArlocal();
      stores = await startStores();
    });
    after(async () => {
      await Promise.all(processes.map((p) => p.stop().catch(() => {})));
      await stores?.close();
      await arlocal?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('takes uploads spread over two command processes to FINALIZED, one acceptance and one spend when they race each other', async () => {
      const shared = {
        ...stores!.env,
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
      // followed live through the query process, whose status streams read through its own subscription
      const followed = await openSse(`${queries.url}/tx/${singles[0]!.id}/events`);
      expect(followed.status, diagnostics()).to.equal(200);

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

      // the same paid item 25 times at each command process at once: the store's expected revision alone
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
      expect(await stores!.streamTypes(`dataItem-${paid.id}`, dataDir)).to.deep.equal(['DataItemAccepted']);

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
      // the roles talk only through the shared stores: polled every 100 ms (mining below counts polls)
      const waitFor = <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string) =>
        eventually(read, done, what, 120_000, 100).catch((error: Error) => Promise.reject(new Error(`${error.message}${diagnostics()}`)));
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
      // blocks keep coming while the waiting bundler takes over: a bundle it posts after some block is
      // still mined (one block every fifth poll, well inside the 50 blocks after which a bundle is dropped)
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
        if (stores!.storedBlob !== undefined) {
          const stored = await stores!.storedBlob(`items/${item.id}`, dataDir);
          expect(Buffer.compare(stored!, item.getRaw()), item.id).to.equal(0);
        }
      }
      expect((await (await fetch(`${queries.url}/chunks/arweave/${uploadId}/status`)).json()).status).to.equal('FINALIZED');
      const steps = (await followed.rest()).map((m) => m.event);
      expect(steps[0], steps.join()).to.be.oneOf(['accepted', 'bundled', 'signed']);
      expect(steps.at(-1), steps.join()).to.equal('permanent');
      // the query process serves no commands, the command processes no queries
      expect((await fetch(`${queries.url}/tx`, { method: 'POST', body: asBody(singles[0]!.getRaw()) })).status).to.equal(404);
      expect((await fetch(`${commandsA.url}/tx/${big.id}/status`)).status).to.equal(404);
      stores!.finally?.();
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
}

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { parseTrace, type Syscall } from './syscallTrace.js';
import { eventually } from '../support/eventually.js';

/**
 * Durability against power loss: SIGKILL cannot lose the page cache, so the crash suites pass with
 * every fsync removed. This suite watches the system calls instead (strace, following every thread
 * of the service) and checks, for each item that got a receipt, that before the first byte of that
 * receipt went to the client's socket:
 * - a small item (SMALL_BLOB_MAX_BYTES, 64 KiB by default), a row of the small-blob file: the log
 *   of that file was synced (fsync or fdatasync of `blobs/.small-blobs.db-wal`) after the write
 *   carrying the row's key `items/<id>`;
 * - a larger one, a file: the blob's bytes were synced (fdatasync of the temp file that was then
 *   renamed to `items/<id>`; for a multi-part item, composed of its chunk files, the fsync of the
 *   temp directory holding their links and the fdatasync of its manifest, the chunk files having
 *   been synced when received), and the rename made durable (fsync of the directory holding
 *   `items/<id>`, after the rename);
 * - the event store's commit was synced (fsync of `events.db-wal` after a write carrying the id).
 */
describe('durability: syscall order before a receipt', function () {
  this.timeout(180_000);
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  let service: ServiceProcess | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'syscalls-'));
    gateway = await startGatewayInfo(500);
  });
  after(async () => {
    await service?.stop();
    await gateway?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('syncs the blob, its directory and the event store commit before each receipt is written to the socket', async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, WALLET_FILE: SERVICE_WALLET_FILE, GATEWAY_URL: gateway.url });
    const tracePath = join(dataDir, 'strace.txt');
    const strace = spawn(
      'strace',
      // -f every thread (libuv's pool, workers), -yy paths and sockets of fds, -s enough of each
      // buffer to find an id in a WAL page or an HTTP response
      [
        '-f',
        '-qq',
        '-yy',
        '-s',
        '8192',
        '-e',
        'trace=write,writev,pwrite64,pwritev,pwritev2,fsync,fdatasync,rename,renameat,renameat2,sendmsg,sendto',
        '-o',
        tracePath,
        '-p',
        String(service.process.pid),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let straceErr = '';
    strace.stderr.on('data', (d) => (straceErr += d));
    const straceExit = once(strace, 'exit');
    try {
      // attached once the answer to a request is seen in the trace
      await eventually(
        async () => {
          await fetch(`${service!.url}/info`);
          return (await readFile(tracePath, 'utf8').catch(() => '')).includes('HTTP/1.1 200');
        },
        Boolean,
        `strace attached to the service (${straceErr})`,
        60_000,
        100,
      );

      const singles = await Promise.all([
        signedItem(signers.arweave(), 'first'),
        signedItem(signers.ethereum(), 'second'),
        itemOfSize(signers.arweave(), 300_000),
      ]);
      const receipted: string[] = [];
      // one at a time, then two at once (a group commit)
      const first = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(singles[0]!.getRaw()) });
      expect(first.status).to.equal(200);
      receipted.push((await first.json()).id);
      for (const res of await Promise.all(singles.slice(1).map((item) => fetch(`${service!.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })))) {
        expect(res.status).to.equal(200);
        receipted.push((await res.json()).id);
      }
      // a small item of small chunks (a row of their bytes), a large one of large chunks (composed of their files)
      const multis = [
        { item: await itemOfSize(signers.arweave(), 6_000), chunk: 2_500 },
        { item: await itemOfSize(signers.arweave(), 150_000), chunk: 70_000 },
      ];
      for (const { item, chunk } of multis) {
        const uploadId = await createUpload(service.url, `?chunkSize=${chunk}`);
        await postChunks(service.url, uploadId, item.getRaw(), chunk);
        const finalized = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
        expect(finalized.status).to.equal(200);
        receipted.push((await finalized.json()).id);
      }
      const [small, large] = multis.map((m) => m.item);
      expect(receipted).to.deep.equal([...singles, small!, large!].map((i) => i.id));

      strace.kill('SIGINT'); // detaches; the service goes on
      await straceExit;
      const calls = parseTrace(await readFile(tracePath, 'utf8'));
      const rows = [singles[0]!, singles[1]!, small!].map((i) => i.id);
      for (const id of receipted) expect(violations(calls, id, dataDir, { row: rows.includes(id), composed: id === large!.id }), id).to.deep.equal([]);
    } finally {
      if (strace.exitCode === null) {
        strace.kill('SIGINT');
        await straceExit;
      }
    }
  });
});

/** what is missing before item `id`'s receipt went out, in words (empty: the order is right) */
function violations(calls: readonly Syscall[], id: string, dataDir: string, blob: { row: boolean; composed: boolean }): string[] {
  // the first answer naming the item: its receipt (JSON quotes are escaped in strace's strings)
  const answer = calls.find((c) => c.socket && c.data.includes('HTTP/1.1 200') && c.data.includes(id));
  if (!answer) return [`no response carrying ${id} was written to a socket`];
  const before = calls.filter((c) => c.done < answer.started);
  const problems = blob.row ? rowViolations(before, id, dataDir) : fileViolations(before, id, dataDir, blob.composed);
  problems.push(...synced(before, join(dataDir, 'events.db-wal'), id));
  return problems;
}

/** a write to the log `wal` carrying `text`, and a sync of that log after it (both before the receipt) */
function synced(before: readonly Syscall[], wal: string, text: string): string[] {
  const written = before.find((c) => c.name.startsWith('pwrite') && c.fdPath === wal && c.data.includes(text));
  if (!written) return [`no write of ${text} to ${wal} before the receipt`];
  if (!before.some((c) => (c.name === 'fsync' || c.name === 'fdatasync') && c.fdPath === wal && c.started > written.done)) {
    return [`no fsync of ${wal} after the commit's write of ${text}`];
  }
  return [];
}

/** a small item's row: the small-blob file's log synced after the write carrying its key */
const rowViolations = (before: readonly Syscall[], id: string, dataDir: string) => synced(before, join(dataDir, 'blobs', '.small-blobs.db-wal'), `items/${id}`);

/** a large item's file: synced, renamed to its key, and the rename made durable */
function fileViolations(before: readonly Syscall[], id: string, dataDir: string, composed: boolean): string[] {
  const problems: string[] = [];
  const finalPath = join(dataDir, 'blobs', 'items', id);
  const rename = before.find((c) => c.name.startsWith('rename') && c.paths[1] === finalPath);
  if (!rename) problems.push(`the blob was not renamed to ${finalPath} before the receipt`);
  else {
    const temp = rename.paths[0];
    if (!before.some((c) => (c.name === 'fdatasync' || c.name === 'fsync') && c.fdPath === temp && c.done < rename.started)) {
      problems.push(`no fdatasync of the blob's temp file ${temp} before its rename`);
    }
    const manifest = join(temp ?? '', '.manifest');
    if (composed && !before.some((c) => c.name === 'fdatasync' && c.fdPath === manifest && c.done < rename.started)) {
      problems.push(`no fdatasync of the composed blob's manifest ${manifest} before its rename`);
    }
    const dir = join(dataDir, 'blobs', 'items');
    if (!before.some((c) => c.name === 'fsync' && c.fdPath === dir && c.started > rename.done)) problems.push(`no fsync of ${dir} after the rename`);
  }
  return problems;
}

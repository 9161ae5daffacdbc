import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { history, UnknownHistoryId } from '../../src/history/history.js';
import { ansiDim, timelineLine } from '../../src/history/lines.js';
import type { RecordedEvent, StreamName } from '../../src/ports/eventStore.js';
import { streamName } from '../../src/ports/eventStore.js';
import type { TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { credit, dropPlan, ethAddress, planQueued, runScript, startPricedService, uploaded } from '../audit/support.js';

describe('npm run history', function () {
  this.timeout(60_000);
  let service: TestService;
  let paid: DataItem;
  let chunked: DataItem;
  let owner: string;
  let uploadId: string;
  let dropped: string;
  let planned: string;

  before(async () => {
    service = await startPricedService();
    const signer = signers.ethereum();
    paid = await itemOfSize(signer, 5000);
    chunked = await itemOfSize(signer, 6000);
    owner = ethAddress(paid);
    await credit(service, owner, 200_000n);
    await uploaded(service, paid, { 'x-forwarded-for': '203.0.113.9' });
    uploadId = await createUpload(service.url, '?chunkSize=2500');
    await postChunks(service.url, uploadId, chunked.getRaw(), 2500);
    expect((await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);
    dropped = (await planQueued(service))[0]!;
    await dropPlan(service, dropped);
    planned = (await planQueued(service))[0]!;
  });
  after(() => service?.close());

  const stores = () => ({ eventStore: service.eventStore, readStore: service.readStore });
  async function output(argument: string, options = {}): Promise<string[]> {
    const pieces: string[] = [];
    for await (const piece of history(stores(), argument, options)) pieces.push(piece);
    return pieces;
  }
  async function recorded(stream: StreamName): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for await (const e of service.eventStore.readStream(stream)) events.push(e);
    return events;
  }
  /** what every line starts with: revision and the time the store recorded the event */
  const at = (e: RecordedEvent) => `#${e.revision}  ${new Date(e.created).toISOString()}  `;
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

  it("prints an item's events with their key facts and metadata, then where the item is now", async () => {
    const [accepted] = await recorded(streamName(`dataItem-${paid.id}`));
    const { reservationId } = accepted!.data as { reservationId: string };
    expect(await output(paid.id)).to.deep.equal([
      `dataItem-${paid.id}`,
      `${at(accepted!)}DataItemAccepted         5000 bytes (payload at ${paid.getStartOfData()}, application/octet-stream); ` +
        `signature type 3, owner ${owner}, token arweave; 50000 winc paid by ${owner} (reservation ${reservationId}); ` +
        `sha256 ${sha256(paid.getRaw())}; blob items/${paid.id}; deadline height 1200  ` +
        `[correlation ${accepted!.metadata.correlationId}, client 203.0.113.9]`,
      `now: CONFIRMED (pending), in plan ${planned} at offset 160`,
    ]);
  });

  it("prints a multi-part upload's chunks and steps", async () => {
    const events = await recorded(streamName(`upload-${uploadId}`));
    const meta = (e: RecordedEvent) => `  [correlation ${e.metadata.correlationId}, client 127.0.0.1]`;
    const blobOf = (e: RecordedEvent) => (e.data as { blobKey: string }).blobKey;
    const [created, c0, c1, c2, requested, validated, finalized] = events;
    expect(await output(uploadId)).to.deep.equal([
      `upload-${uploadId}`,
      `${at(created!)}UploadCreated            token arweave, chunk size 2500${meta(created!)}`,
      `${at(c0!)}ChunkReceived            bytes [0, 2500) (2500 bytes), blob ${blobOf(c0!)}${meta(c0!)}`,
      `${at(c1!)}ChunkReceived            bytes [2500, 5000) (2500 bytes), blob ${blobOf(c1!)}${meta(c1!)}`,
      `${at(c2!)}ChunkReceived            bytes [5000, 6000) (1000 bytes), blob ${blobOf(c2!)}${meta(c2!)}`,
      `${at(requested!)}UploadFinalizeRequested  sync finalize${meta(requested!)}`,
      `${at(validated!)}UploadValidated          item ${chunked.id}, 6000 bytes${meta(validated!)}`,
      `${at(finalized!)}UploadFinalized          item ${chunked.id}, receipt for 60000 winc, deadline height 1200${meta(finalized!)}`,
    ]);
  });

  it("prints an account's credits, reservations and settlements, found from its address in any case", async () => {
    const events = await recorded(streamName(`account-${owner}`));
    const reservation = (e: RecordedEvent) => (e.data as { reservationId: string }).reservationId;
    const [credited, r1, s1, r2, s2] = events;
    const meta = (e: RecordedEvent) => `[correlation ${e.metadata.correlationId}, client ${e.metadata.clientAddress}]`;
    expect(await output(owner.toLowerCase())).to.deep.equal([
      `account-${owner}`,
      `${at(credited!)}AccountCredited          +200000 winc (credit credit-200000)  [correlation audit-test]`,
      `${at(r1!)}BalanceReserved          50000 winc reserved for item ${paid.id} (reservation ${reservation(r1!)})  ${meta(r1!)}`,
      `${at(s1!)}ReservationSettled       50000 winc spent on item ${paid.id} (reservation ${reservation(r1!)})  ${meta(s1!)}`,
      `${at(r2!)}BalanceReserved          60000 winc reserved for item ${chunked.id} (reservation ${reservation(r2!)})  ${meta(r2!)}`,
      `${at(s2!)}ReservationSettled       60000 winc spent on item ${chunked.id} (reservation ${reservation(r2!)})  ${meta(s2!)}`,
    ]);
  });

  it('prints a bundle plan with its offsets, and its drop', async () => {
    const [plannedEvent, droppedEvent] = await recorded(streamName(`bundle-${dropped}`));
    expect(await output(dropped)).to.deep.equal([
      `bundle-${dropped}`,
      `${at(plannedEvent!)}BundlePlanned            2 items, header 160 bytes, 11160 bytes in all; ` +
        `${paid.id} at 160 (5000 bytes), ${chunked.id} at 5160 (6000 bytes)  [correlation bundler]`,
      `${at(droppedEvent!)}BundleDropped            dropped: audit test drop; 2 items back to the queue  [correlation audit-test]`,
    ]);
  });

  it('sets the metadata off in dim on a terminal', async () => {
    const [plannedEvent] = await recorded(streamName(`bundle-${planned}`));
    expect(timelineLine(plannedEvent!, ansiDim)).to.match(/ \(6000 bytes\) {2}\x1b\[2m\[correlation bundler\]\x1b\[22m$/);
  });

  it('points from an item nested in an uploaded bundle to the item that holds it', async () => {
    const inner = await signedItem(signers.solana(), 'nested');
    const root = await bundleItem(signers.ethereum(), await bundleBytes([inner]));
    await uploaded(service, root);
    await nestedIndexed(service, root.id);
    const error = await output(inner.id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(UnknownHistoryId);
    expect((error as Error).message).to.equal(`${inner.id} has no stream of its own: it is nested in item ${root.id} (npm run history -- ${root.id})`);
  });

  it('prints the recorded events as a JSON array with --json, and exits 1 for an unknown id and 2 for a bad command line', async () => {
    const env = { DATA_DIR: service.dataDir };
    const unknown = 'u'.repeat(43);
    const [json, missing, usage] = await Promise.all([
      runScript('history', [dropped, '--json'], env),
      runScript('history', [unknown], env),
      runScript('history', [dropped, planned], env),
    ]);
    const events = await recorded(streamName(`bundle-${dropped}`));
    expect(json.code).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal(
      events.map((e) => ({
        streamName: `bundle-${dropped}`,
        revision: String(e.revision),
        position: String(e.position),
        id: e.id,
        type: e.type,
        created: new Date(e.created).toISOString(),
        data: e.data,
        metadata: e.metadata,
      })),
    );
    expect(missing).to.deep.equal({ code: 1, stdout: '', stderr: `error: no item, upload, account, bundle plan or block list named "${unknown}"\n` });
    expect(usage.code).to.equal(2);
    expect(usage.stderr.split('\n').slice(0, 2)).to.deep.equal([
      'expected 1 argument, got 2',
      'usage: npm run history -- <dataItemId|uploadId|address|planId|blocklist> [--json]',
    ]);
  });
});

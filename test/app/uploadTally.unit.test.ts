import { expect } from 'chai';
import { UploadRepository } from '../../src/app/uploads.js';
import { createUploadTally, type UploadTally } from '../../src/app/multipart/uploadTally.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import { createProjectionRunner, type ProjectionRunner } from '../../projections/runner.js';
import { unfinishedUploadsProjection } from '../../projections/index.js';
import { sqliteStoresEach } from '../projections/readModels.js';
import { eventually } from '../support/eventually.js';
import { newEventId } from '../../src/domain/ids.js';
import type { StreamName } from '../../src/ports/eventStore.js';

/**
 * The upload tally: what each client holds in open multi-part uploads, kept current from the event
 * store at a cost per event (not a rescan of every upload), starting from the read model wherever
 * the projector is.
 */

const FREE = 1000;

describe('upload tally', function () {
  this.timeout(30_000);
  const stores = sqliteStoresEach('upload-tally-');
  let uploads: UploadRepository;
  let runner: ProjectionRunner;
  let tallies: UploadTally[];
  let scans: number;
  beforeEach(async () => {
    uploads = new UploadRepository(stores.events);
    runner = createProjectionRunner({ eventStore: stores.events, readStore: stores.reads, projections: [unfinishedUploadsProjection] });
    tallies = [];
    scans = 0;
  });
  afterEach(async () => {
    for (const tally of tallies) await tally.stop();
    await runner.stop();
  });

  /**
   * A tally over a read store that counts the scans it is asked for. `staleCheckpoint`: the checkpoint
   * as read before the projector wrote the documents the tally then scans (they reflect more).
   */
  async function startTally(staleCheckpoint?: bigint): Promise<UploadTally> {
    const counting: Pick<ReadStore, 'scan' | 'getCheckpoint'> = {
      scan: (collection, page) => {
        scans++;
        return stores.reads.scan(collection, page);
      },
      getCheckpoint: async (name) => staleCheckpoint ?? stores.reads.getCheckpoint(name),
    };
    const tally = createUploadTally({ eventStore: stores.events, readStore: counting, freeBytes: FREE });
    tallies.push(tally);
    await tally.start();
    return tally;
  }

  const create = (uploadId: string, clientAddress: string) =>
    uploads.execute({ type: 'CreateUpload', data: { uploadId, token: 'arweave', now: 1 } }, { correlationId: 't', clientAddress });
  const chunk = (uploadId: string, offset: number, length: number, n: number, owner?: string) =>
    uploads.execute(
      {
        type: 'ReceiveChunk',
        data: {
          uploadId,
          offset,
          length,
          blobKey: `uploads/${uploadId}/${offset}_${n}`,
          ...(owner ? { owner } : {}),
          maxChunks: 100,
          now: 2,
        },
      },
      { correlationId: 't' },
    );
  const expire = (uploadId: string) =>
    uploads.execute({ type: 'Expire', data: { uploadId, lifetimes: { lifetimeMs: 0, headerlessLifetimeMs: 0 }, now: 10 } }, { correlationId: 't' });

  it('counts uploads, bytes and bytes past the free limit of uploads with no header per client; a replaced chunk and an end count off', async () => {
    await runner.start();
    const tally = await startTally();
    const ids = ['a'.repeat(24), 'b'.repeat(24), 'c'.repeat(24)];
    await create(ids[0]!, '10.0.0.1');
    await create(ids[1]!, '10.0.0.1');
    await create(ids[2]!, '2001:db8::1');
    await chunk(ids[0]!, 2500, 2500, 1);
    await chunk(ids[0]!, 2500, 3000, 2);
    await chunk(ids[1]!, 0, 4000, 3, 'owner');
    await chunk(ids[2]!, 2500, 2500, 4);
    await eventually(() => tally.usage('10.0.0.1').bytes === 7000 && tally.usage('2001:db8:0:0::/64').bytes === 2500, Boolean, 'the chunks followed');
    expect(tally.usage('10.0.0.1')).to.deep.equal({ uploads: 2, bytes: 7000, headerlessExcess: 2000 });
    expect(tally.usage('2001:db8:0:0::/64')).to.deep.equal({ uploads: 1, bytes: 2500, headerlessExcess: 1500 });
    expect(tally.totalBytes()).to.equal(9500);

    await expire(ids[0]!);
    await eventually(() => tally.usage('10.0.0.1').uploads === 1, Boolean, 'the end followed');
    expect(tally.usage('10.0.0.1')).to.deep.equal({ uploads: 1, bytes: 4000, headerlessExcess: 0 });
    expect(tally.totalBytes()).to.equal(6500);
  });

  it('follows past events of other kinds without parsing them, however they are shaped', async () => {
    const logged: string[] = [];
    const tally = createUploadTally({ eventStore: stores.events, readStore: stores.reads, freeBytes: FREE, log: (message) => logged.push(message) });
    tallies.push(tally);
    await tally.start();
    // an event no upload has (the bridge's outcome), its data not even that event's shape
    await stores.events.append(
      'dataitem-other' as StreamName,
      [{ id: newEventId(), type: 'DataItemBridged', data: { not: 'an outcome' }, metadata: { correlationId: 't', schemaVersion: 1 } }],
      'any',
    );
    await create('u'.repeat(24), '10.0.0.9');
    await eventually(
      () => tally.usage('10.0.0.9').uploads,
      (n) => n === 1,
      'the upload after it followed',
    );
    // not stopped by it (and started again past it)
    expect(logged).to.deep.equal([]);
  });

  it('starts from the read model wherever the projector is, counting nothing twice, and never scans again', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => String(i).repeat(24));
    for (const [i, id] of ids.entries()) {
      await create(id, '10.0.0.2');
      await chunk(id, 2500, 2000 + i, i);
    }
    // the projector has seen the creations and the first chunks, not what follows
    await runner.start();
    const firstHalf = await stores.events.headPosition();
    await runner.waitFor(firstHalf, 5000);
    await runner.stop();
    for (const [i, id] of ids.entries()) await chunk(id, 0, 3000, 100 + i, 'owner');
    await expire(ids[5]!);
    const tally = await startTally();
    const scansAtStart = scans;
    await eventually(() => tally.usage('10.0.0.2').uploads === 5, Boolean, 'the rest followed from the event store');
    const bytes = [0, 1, 2, 3, 4].reduce((sum, i) => sum + 2000 + i + 3000, 0);
    expect(tally.usage('10.0.0.2')).to.deep.equal({ uploads: 5, bytes, headerlessExcess: 0 });

    // the same for a tally whose checkpoint is older than the documents it scanned (the projector moved on in between)
    await runner.start();
    await runner.waitFor(await stores.events.headPosition(), 5000);
    const second = await startTally(firstHalf);
    await eventually(() => second.usage('10.0.0.2').uploads === 5 && second.usage('10.0.0.2').bytes === bytes, Boolean, 'the second tally agrees');
    const scansAfter = scans;
    for (let i = 0; i < 20; i++) await create(`x${String(i).padStart(23, '0')}`, '10.0.0.3');
    await eventually(() => tally.usage('10.0.0.3').uploads === 20 && second.usage('10.0.0.3').uploads === 20, Boolean, 'new uploads followed');
    expect(scans).to.equal(scansAfter);
    expect(scansAtStart).to.be.greaterThan(0);
  });

  it('counts an expected upload from the moment it is announced until it is created or forgotten', async () => {
    await runner.start();
    const tally = await startTally();
    tally.expect('e'.repeat(24), '10.0.0.4');
    tally.expect('f'.repeat(24), '10.0.0.4');
    expect(tally.usage('10.0.0.4').uploads).to.equal(2);
    tally.forget('f'.repeat(24));
    expect(tally.usage('10.0.0.4').uploads).to.equal(1);
    await create('e'.repeat(24), '10.0.0.4');
    await eventually(() => tally.clientOf('e'.repeat(24)) === '10.0.0.4', Boolean, 'the creation followed');
    expect(tally.usage('10.0.0.4').uploads).to.equal(1);
  });
});

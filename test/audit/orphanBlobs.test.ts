import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { summaryText } from '../../src/audit/report.js';
import { newUploadId } from '../../src/domain/upload/ids.js';
import type { TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { createUpload, postChunk, postChunks } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { piecesOf } from '../blobStore/support.js';
import { auditOf, kindsAndIds, runScript, startPricedService, uploaded } from './support.js';

describe('npm run audit: blobs without their event', function () {
  this.timeout(60_000);
  let service: TestService;
  beforeEach(async () => {
    service = await startPricedService();
  });
  afterEach(() => service?.close());

  it('reports an item blob whose acceptance was never recorded, and not the blobs of accepted items', async () => {
    const accepted = await signedItem(signers.arweave());
    await uploaded(service, accepted);
    const never = await signedItem(signers.arweave());
    await service.blobStore.put(`items/${never.id}`, piecesOf(never.getRaw()));

    const { findings, summary } = await auditOf(service, { blobGraceMs: 0 });
    expect(kindsAndIds(findings)).to.deep.equal([{ kind: 'blob-orphan', id: never.id }]);
    expect(findings[0]!.detail).to.match(
      new RegExp(`^items/${never.id}: the item has no DataItemAccepted \\(${never.getRaw().length} bytes, last changed \\d{4}-`),
    );
    expect(summary.checked.blobsListed).to.equal(2);
  });

  it('reports the bytes left of an upload at an end and of an upload it has no events of, not those of an upload under way', async () => {
    const item = await itemOfSize(signers.arweave(), 1400);
    const finished = await createUpload(service.url);
    await postChunks(service.url, finished, item.getRaw(), 3000);
    expect((await fetch(`${service.url}/chunks/arweave/${finished}/-1`, { method: 'POST' })).status).to.equal(200);
    // a deletion cut short: the finalized upload's bytes are back
    await service.blobStore.writeAt(`uploads/${finished}/data`, 0, piecesOf(randomBytes(100)));
    const unknown = newUploadId();
    await service.blobStore.writeAt(`uploads/${unknown}/data`, 0, piecesOf(randomBytes(10)));
    const underWay = await createUpload(service.url);
    expect((await postChunk(service.url, underWay, 0, randomBytes(3000))).status).to.equal(200);

    const { findings } = await auditOf(service, { blobGraceMs: 0 });
    expect(kindsAndIds(findings)).to.deep.equal(
      [
        { kind: 'blob-orphan', id: finished },
        { kind: 'blob-orphan', id: unknown },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(findings.find((f) => f.id === finished)!.detail).to.match(
      new RegExp(`^uploads/${finished}/data: the upload is FINALIZED, its bytes should be gone \\(100 bytes`),
    );
    expect(findings.find((f) => f.id === unknown)!.detail).to.match(new RegExp(`^uploads/${unknown}/data: the upload has no events \\(10 bytes`));
  });

  it('does not judge a blob changed within the grace period (an upload in flight), and says how many it left', async () => {
    const never = await signedItem(signers.arweave());
    await service.blobStore.put(`items/${never.id}`, piecesOf(never.getRaw()));
    const { findings, summary } = await auditOf(service, { blobGraceMs: 60 * 60 * 1000 });
    expect(findings).to.deep.equal([]);
    expect(summary.checked.blobsListed).to.equal(1);
    expect(summary.checked.blobsNotJudged).to.equal(1);
    expect(summaryText(summary).split('\n')).to.include('  blobs 1 against their events (1 changed within 60 min, not judged)');

    // the command line's default is that hour
    const result = await runScript('audit', [], { DATA_DIR: service.dataDir });
    expect(result.code).to.equal(0);
    expect(result.stdout).to.include('  blobs 1 against their events (1 changed within 60 min, not judged)\n');
    const judged = await runScript('audit', ['--blob-grace-minutes', '0'], { DATA_DIR: service.dataDir });
    expect(judged.code).to.equal(1);
    expect(judged.stdout).to.include(`blob-orphan          ${never.id}  items/${never.id}: the item has no DataItemAccepted`);
  });
});

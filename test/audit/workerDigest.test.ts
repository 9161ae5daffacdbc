import { expect } from 'chai';
import { appendFile, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { INLINE_BELOW } from '../../src/crypto/blobHasher.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { startTestService, type TestService } from '../support/testService.js';
import { auditOf, kindsAndIds, uploaded } from './support.js';

/**
 * Items whose recorded sha256 was computed on a hashing worker (src/crypto/blobHasher.ts): the
 * audit finds any changed, missing or added byte of their stored blobs, header included.
 */
describe('npm run audit on blobs whose digest a hashing worker computed', function () {
  this.timeout(120_000);
  let service: TestService;
  before(async () => (service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(64 * 1024 * 1024) })));
  after(() => service.close());

  const blobPath = (item: DataItem) => join(service.dataDir, 'blobs', 'items', item.id);
  const flip = async (item: DataItem, at: number) => {
    const bytes = await readFile(blobPath(item));
    bytes[at]! ^= 0x01;
    await writeFile(blobPath(item), bytes);
  };

  it('finds a changed header byte, a changed payload byte, a blob cut short and one with a byte added', async () => {
    const size = 3 * 1024 * 1024 + 17;
    expect(size).to.be.above(INLINE_BELOW);
    const [header, payload, short, long, intact] = await Promise.all([1, 2, 3, 4, 5].map(() => itemOfSize(signers.arweave(), size)));
    for (const item of [header, payload, short, long, intact]) await uploaded(service, item!);
    expect(service.hasher.running()).to.equal(1);
    expect((await auditOf(service)).findings).to.deep.equal([]);

    // byte 2: the first byte of the signature
    await flip(header!, 2);
    await flip(payload!, size - 1000);
    await truncate(blobPath(short!), size - 1);
    await appendFile(blobPath(long!), Buffer.from([0]));

    const { findings } = await auditOf(service);
    const expected = [
      ...[header!, payload!, short!, long!].map((item) => ({ kind: 'blob-digest', id: item.id })),
      ...[short!, long!].map((item) => ({ kind: 'blob-size', id: item.id })),
      ...[header!, payload!, short!, long!].map((item) => ({ kind: 'item-signature', id: item.id })),
    ];
    expect(kindsAndIds(findings)).to.deep.equal(expected.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id)));
  });
});

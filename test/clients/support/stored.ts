import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { DataItem } from 'arbundles';
import type { TestService } from '../../support/testService.js';
import { storedBlob } from '../../support/storedBlob.js';

/**
 * The item a client uploaded, as the service stored it: the whole blob parses and verifies as an
 * ANS-104 data item with that id, and its payload is exactly the bytes the client was given.
 */
export async function expectStoredAsSigned(service: TestService, id: string, payload: Uint8Array): Promise<DataItem> {
  const stored = await storedBlob(service.dataDir, `items/${id}`);
  if (!stored) throw new Error(`no blob stored for ${id}`);
  expect(await DataItem.verify(stored), 'stored bytes verify as a data item').to.equal(true);
  const item = new DataItem(stored);
  expect(await item.isValid(), 'signature verifies').to.equal(true);
  expect(item.id).to.equal(id);
  expect(item.getStartOfData()).to.equal(stored.length - payload.length);
  expect(Buffer.compare(stored.subarray(item.getStartOfData()), payload), 'payload equals the file').to.equal(0);
  return item;
}

/** `GET /tx/:id/status` right after acceptance: confirmed, not yet bundled, free, with the item's layout. */
export async function expectNewStatus(service: TestService, id: string, item: { raw: number; payload: number; contentType: string }) {
  const res = await fetch(`${service.url}/tx/${id}/status`);
  expect(res.status).to.equal(200);
  expect(await res.json()).to.deep.equal({
    status: 'CONFIRMED',
    info: 'new',
    winc: '0',
    rawContentLength: item.raw,
    payloadContentType: item.contentType,
    payloadDataStart: item.raw - item.payload,
    payloadContentLength: item.payload,
  });
}

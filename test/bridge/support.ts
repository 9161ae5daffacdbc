import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { DataItem, SIG_CONFIG, serializeTags } from 'arbundles';
import type { QueuedHeader } from '../support/opticalGateway.js';
import type { TestService } from '../support/testService.js';
import { asBody } from '../support/items.js';
import type { DataItemBridged } from '../../src/domain/dataItem/events.js';

const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const optional = (b64: string | undefined) => (b64 ? Buffer.concat([Buffer.from([1]), Buffer.from(b64, 'base64url')]) : Buffer.from([0]));

/**
 * Whether a posted header is the item's, signature and all: the item's bytes are laid out again
 * from the header's fields and its payload (ANS-104), and arbundles verifies them (under each
 * signature type whose sizes the signature and owner have). Its id must be the header's.
 */
export async function expectHeaderVerifies(header: QueuedHeader, payload: Uint8Array): Promise<void> {
  const signature = Buffer.from(header.signature, 'base64url');
  const owner = Buffer.from(header.owner, 'base64url');
  const tags = (header.tags ?? []).map((t) => ({ name: Buffer.from(t.name, 'base64url').toString(), value: Buffer.from(t.value, 'base64url').toString() }));
  const tagBytes = tags.length > 0 ? Buffer.from(serializeTags(tags)) : Buffer.alloc(0);
  expect(header.owner_address).to.equal(createHash('sha256').update(owner).digest('base64url'));
  expect(header.data_size).to.equal(payload.length);
  const types = Object.entries(SIG_CONFIG).filter(([, c]) => c.sigLength === signature.length && c.pubLength === owner.length);
  for (const [type] of types) {
    const sigType = Buffer.alloc(2);
    sigType.writeUInt16LE(Number(type));
    const raw = Buffer.concat([
      sigType,
      signature,
      owner,
      optional(header.target),
      optional(header.anchor),
      u64(tags.length),
      u64(tagBytes.length),
      tagBytes,
      payload,
    ]);
    if (await DataItem.verify(raw)) {
      expect(new DataItem(raw).id).to.equal(header.id);
      return;
    }
  }
  expect.fail(`the header of ${header.id} does not verify under any signature type`);
}

/** uploads `raw` (`POST /tx`): the status and, on 200, the receipt */
export async function upload(service: Pick<TestService, 'url'>, raw: Uint8Array) {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(raw), headers: { 'content-type': 'application/octet-stream' } });
  const body = (await res.json()) as { id: string; fastFinalityIndexes: string[]; dataCaches: string[] };
  return { status: res.status, receipt: body };
}

/** every `DataItemBridged` recorded, in order */
export async function bridgedEvents(service: Pick<TestService, 'eventStore'>): Promise<DataItemBridged['data'][]> {
  const found: DataItemBridged['data'][] = [];
  for await (const recorded of service.eventStore.readAll()) if (recorded.type === 'DataItemBridged') found.push(recorded.data as DataItemBridged['data']);
  return found;
}

/** the environment of a bridge posting to `url` with `key`, its waits made short for a test */
export const bridgeEnv = (url: string, key: string, more: Record<string, string> = {}): Record<string, string> => ({
  OPTICAL_BRIDGE_URLS: url,
  OPTICAL_BRIDGE_ADMIN_KEY: key,
  OPTICAL_BRIDGE_INTERVAL_MS: '20',
  OPTICAL_BRIDGE_RETRY_MS: '50',
  OPTICAL_BRIDGE_TIMEOUT_MS: '2000',
  OPTICAL_BRIDGE_HEALTH_WINDOW_MS: '60000',
  ...more,
});

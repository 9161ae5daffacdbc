import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createData, type Signer } from 'arbundles';
import { streamSigner } from 'arbundles/stream';
import { DataItemTooLarge, InvalidDataItem } from '../../domain/errors.js';
import { bestEffort } from '../../bestEffort.js';
import { receiveDataItem } from '../acceptance/receiveDataItem.js';
import { ensureNotBlocked } from '../blocklist.js';
import { payForItem, type X402Deps, type X402Outcome, type X402Request } from './x402Upload.js';

/** what the unsigned route takes besides a signed upload's request: the raw data's tags */
export interface UnsignedRequest extends X402Request {
  /** `x-data-item-tags`: a JSON array of `{ name, value }` (the reference's `extractTagsFromHeaders`) */
  tagsHeader?: string;
}

type Tag = { name: string; value: string };

/** the reference's answer without content-length on this route (turbo-upload-service src/routes/x402RawDataPost.ts) */
export const RAW_LENGTH_REQUIRED = 'Missing Content Length. Content Length is required for raw data post.';

/** blobs of raw data waiting to be signed; the blob sweep removes what a crash leaves */
const RAW_PREFIX = 'x402-raw/';

/** tags of `x-data-item-tags`: junk is ignored, as the reference ignores what does not parse */
function headerTags(header: string | undefined): Tag[] {
  if (!header) return [];
  try {
    const parsed: unknown = JSON.parse(header);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((t): t is Tag => typeof t?.name === 'string' && typeof t?.value === 'string').map(({ name, value }) => ({ name, value }));
  } catch {
    return [];
  }
}

/** the payer tag's value while the payer is not yet known: an address of the same length, so the size is exact */
const STUB_PAYER = `0x${'0'.repeat(40)}`;

/**
 * `POST /x402/data-item/unsigned`: raw data made into a data item signed by the service's Ethereum key, as
 * the reference does: tags `Content-Type` (the request's), `Data-Item-Authority`, those of
 * `x-data-item-tags`, and `X402-Payer-Address` (the payer). Priced at the item's exact size, paid like a
 * signed upload. The raw bytes are staged in a blob (read twice: once to sign, once to store), never in
 * memory, and given up however the upload ends.
 */
export async function uploadUnsignedWithX402(deps: X402Deps & { dataItemSigner: Signer }, request: UnsignedRequest): Promise<X402Outcome> {
  const length = request.contentLength;
  if (length === undefined) return { kind: 'lengthRequired' };
  const baseTags: Tag[] = [
    { name: 'Content-Type', value: request.contentType ?? 'application/octet-stream' },
    { name: 'Data-Item-Authority', value: 'Permaweb Upload Service' },
    ...headerTags(request.tagsHeader),
  ];
  const tagsFor = (payer: string | undefined) => (payer === undefined ? baseTags : [...baseTags, { name: 'X402-Payer-Address', value: payer }]);
  let headerBytes: number;
  try {
    headerBytes = createData('', deps.dataItemSigner, { tags: tagsFor(STUB_PAYER) }).getRaw().byteLength;
  } catch (error) {
    throw new InvalidDataItem(`x-data-item-tags do not make a data item: ${String(error)}`);
  }
  const bytes = headerBytes + length;
  if (bytes > deps.maxDataItemSize) throw new DataItemTooLarge(`content-length ${length}`);
  const key = `${RAW_PREFIX}${randomUUID()}`;
  try {
    return await payForItem(deps, request, {
      bytes,
      receive: async (payer) => {
        const { size } = await deps.blobStore.put(key, exactly(request.body, length));
        if (size !== length) throw new InvalidDataItem(`x402 uploads need an exact content-length: ${length} declared, ${size} received`);
        const tags = tagsFor(payer);
        const signed = await streamSigner(await deps.blobStore.read(key), await deps.blobStore.read(key), deps.dataItemSigner, { tags });
        return receiveDataItem(signed as Readable, {
          blobStore: deps.blobStore,
          maxSize: bytes,
          onHeader: async (header) => ensureNotBlocked(deps.blocklist, { owner: header }),
          ...(deps.hasher ? { hasher: deps.hasher } : {}),
        });
      },
    });
  } finally {
    await bestEffort(deps.blobStore.delete(key), 'the blob sweep removes raw x402 data left behind');
  }
}

/** the body, refused past `length` bytes */
async function* exactly(body: AsyncIterable<Uint8Array>, length: number): AsyncIterable<Uint8Array> {
  let received = 0;
  for await (const chunk of body) {
    received += chunk.byteLength;
    if (received > length) throw new DataItemTooLarge(`more than the declared ${length} bytes`);
    yield chunk;
  }
}

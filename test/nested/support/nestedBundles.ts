import { createHash } from 'node:crypto';
import { bundleAndSignData, type DataItem, type Signer } from 'arbundles';
import { signedItem, signers } from '../../support/items.js';

/** Items whose payload is an ANS-104 bundle, made by arbundles, and where their items should be found. */

export const BUNDLE_TAGS = [
  { name: 'Bundle-Format', value: 'binary' },
  { name: 'Bundle-Version', value: '2.0.0' },
];

/** The bytes of an ANS-104 bundle of `items` (signed already), as arbundles lays them out. */
export async function bundleBytes(items: readonly DataItem[]): Promise<Buffer> {
  return (await bundleAndSignData([...items], signers.ethereum())).getRaw();
}

/** An item carrying `payload` (a bundle's bytes, or bytes meant to look like one) with the bundle tags. */
export function bundleItem(signer: Signer, payload: Uint8Array, tags = BUNDLE_TAGS): Promise<DataItem> {
  return signedItem(signer, payload, [...tags, { name: 'Content-Type', value: 'application/octet-stream' }]);
}

/** What the index should say of one nested item, computed from arbundles' own view of the items. */
export interface ExpectedNested {
  id: string;
  parentId: string;
  startOffsetInParentDataItemPayload: number;
  offsetInRootItem: number;
  rawContentLength: number;
  payloadDataStart: number;
  payloadContentType: string;
  depth: number;
  /** the header's fields the GraphQL read model finds it by */
  owner: string;
  signatureType: number;
  tags: { name: string; value: string }[];
  target?: string;
  anchor?: string;
}

/** The places of `items` in the bundle that is the payload of `parent`, itself at `parentStart` in the root. */
export function expectedPlaces(parent: DataItem, parentStart: number, items: readonly DataItem[], depth: number): ExpectedNested[] {
  let offset = 32 + 64 * items.length;
  return items.map((item) => {
    const place = {
      id: item.id,
      parentId: parent.id,
      startOffsetInParentDataItemPayload: offset,
      offsetInRootItem: parentStart + parent.getStartOfData() + offset,
      rawContentLength: item.getRaw().length,
      payloadDataStart: item.getStartOfData(),
      payloadContentType: item.tags.find((t) => t.name.toLowerCase() === 'content-type')?.value ?? 'application/octet-stream',
      depth,
      owner: createHash('sha256').update(item.rawOwner).digest('base64url'),
      signatureType: item.signatureType,
      tags: item.tags.map(({ name, value }) => ({ name, value })),
      ...(item.rawTarget.length > 0 ? { target: Buffer.from(item.rawTarget).toString('base64url') } : {}),
      ...(item.rawAnchor.length > 0 ? { anchor: Buffer.from(item.rawAnchor).toString('base64url') } : {}),
    };
    offset += item.getRaw().length;
    return place;
  });
}

export interface TwoLevels {
  /** the uploaded item: its payload is a bundle of [first, middle, last] */
  root: DataItem;
  first: DataItem;
  /** its payload is a bundle of [inner1, inner2] */
  middle: DataItem;
  last: DataItem;
  inner1: DataItem;
  inner2: DataItem;
  /** every nested item, parents before children, as the index should list them */
  expected: ExpectedNested[];
}

/** A bundle in a bundle: several signature types, content types, and an empty payload. */
export async function twoLevels(): Promise<TwoLevels> {
  const inner1 = await signedItem(signers.solana(), 'deepest text', [{ name: 'content-type', value: 'text/plain' }]);
  const inner2 = await signedItem(signers.arweave(), new Uint8Array(0), []);
  const middle = await bundleItem(signers.ethereum(), await bundleBytes([inner1, inner2]), [
    { name: 'bundle-FORMAT', value: 'binary' },
    { name: 'BUNDLE-version', value: '2.0.0' },
  ]);
  const first = await signedItem(signers.arweave(), 'first of the outer bundle', [{ name: 'Content-Type', value: 'text/markdown' }]);
  const last = await signedItem(signers.ethereum(), new Uint8Array(20_000).fill(7));
  const root = await bundleItem(signers.arweave(), await bundleBytes([first, middle, last]));
  const outer = expectedPlaces(root, 0, [first, middle, last], 1);
  const inner = expectedPlaces(middle, outer[1]!.offsetInRootItem, [inner1, inner2], 2);
  return { root, first, middle, last, inner1, inner2, expected: [outer[0]!, outer[1]!, ...inner, outer[2]!] };
}

import { randomBytes } from 'node:crypto';
import type { DataItem, Signer } from 'arbundles';
import { signedItem } from './items.js';

/** A signed item whose raw size is exactly `size` bytes (the payload fills what the header leaves). */
export async function itemOfSize(signer: Signer, size: number): Promise<DataItem> {
  const header = (await signedItem(signer, new Uint8Array(0))).getRaw().length;
  if (size < header) throw new Error(`an item of this signer needs at least ${header} bytes`);
  // random payload: ECDSA signatures are deterministic, so equal payloads would make equal ids
  const item = await signedItem(signer, randomBytes(size - header));
  if (item.getRaw().length !== size) throw new Error(`made ${item.getRaw().length} bytes, not ${size}`);
  return item;
}

import { createHash } from 'node:crypto';

/**
 * A UUID (RFC 9562 version 8: vendor-defined) made from a name, so a retried append carries the
 * same event ids and the store keeps it once.
 */
export function uuidFromName(name: string): string {
  const bytes = createHash('sha256').update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** the same id for the same findings of a nested index, whichever run appends them; another id for any other part */
export const nestedPartId = (rootId: string, first: number, count: number, more: boolean) =>
  uuidFromName(`NestedItemsIndexed/${rootId}/${first}+${count}${more ? '/more' : ''}`);

import type { z } from 'zod';
import type { ItemPlace } from '../queries/itemData.js';
import type { VerifiedHeader } from '../verify/types.js';
import type { TxHeaderBody } from './openapi/bodies.js';

/** `GET /tx/:id`: the header as read from the item's first bytes, the sizes as recorded at acceptance */
export const headerBody = (header: VerifiedHeader, place: ItemPlace): z.output<typeof TxHeaderBody> => ({
  id: header.id,
  signatureType: header.signatureType,
  signature: header.signature,
  owner: header.ownerPublicKey,
  ownerAddress: header.nativeAddress,
  ...(header.target !== undefined ? { target: header.target } : {}),
  ...(header.anchor !== undefined ? { anchor: header.anchor } : {}),
  tags: header.tags.map(({ name, value }) => ({ name, value })),
  rawContentLength: place.rawContentLength,
  payloadContentType: place.payloadContentType,
  payloadDataStart: place.payloadDataStart,
  payloadContentLength: place.payloadContentLength,
});

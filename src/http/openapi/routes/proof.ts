import { z } from 'zod';
import { defineRoute } from '../route.js';
import { dataItemIdParam } from '../params.js';

/** `GET /tx/:id/proof` (CONTRACT.md section 10): its own file, beside the item queries of public.ts. */

const Count = z.int().nonnegative();
const Base64Url = z.string().regex(/^[A-Za-z0-9_-]*$/);

export const TxProofBody = z
  .object({
    id: z.string(),
    rootTransactionId: z.string().meta({ description: 'the Arweave transaction whose data holds the item (the root bundle)' }),
    dataRoot: Base64Url.meta({ description: "the root transaction's `data_root`" }),
    dataSize: Count.meta({ description: "the root transaction's `data_size`" }),
    itemOffset: Count.meta({ description: "where the signed item's bytes start in the root transaction's data (nested items: inside their root item's)" }),
    itemSize: Count.meta({ description: 'bytes of the signed item' }),
    block: z
      .object({ height: Count, indepHash: Base64Url })
      .nullable()
      .meta({ description: 'the block holding the root transaction, as the gateway named it; null until mined' }),
    chunks: z
      .array(
        z.object({
          offset: Count.meta({ description: "the chunk's last byte in the data" }),
          dataPath: Base64Url.meta({ description: "the chunk's Merkle path (`data_path`)" }),
        }),
      )
      .meta({
        description: 'every chunk holding a byte of the item, in order; arweave-js `validatePath(dataRoot, offset, 0, dataSize, dataPath)` accepts each',
      }),
  })
  .meta({ id: 'TxProof' });

export const txProofRoute = defineRoute({
  operationId: 'getTxProof',
  method: 'get',
  path: '/tx/:id/proof',
  tag: 'items',
  summary: "Proof that a data item's bytes are in an Arweave transaction",
  description:
    "The root transaction, its data root, the item's byte range in its data and the Merkle path of each chunk holding it, with the block " +
    "once mined: enough to check against any gateway (`npm run verify-proof`). `TX doesn't exist` until the item's root transaction is known.",
  params: { id: dataItemIdParam },
  responses: { 200: { description: 'the proof', content: { contentType: 'application/json', schema: TxProofBody } } },
  errors: ['TX_NOT_FOUND'],
});

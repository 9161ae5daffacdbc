import { z } from 'zod';

/** The signed receipt of CONTRACT.md section 3, in its wire field order. */
export const Receipt = z.object({
  id: z.string(),
  owner: z.string(),
  dataCaches: z.array(z.string()),
  fastFinalityIndexes: z.array(z.string()),
  deadlineHeight: z.number().int().nonnegative(),
  timestamp: z.number().int().nonnegative(),
  version: z.literal('0.2.0'),
  winc: z.string().regex(/^\d+$/),
  public: z.string(),
  signature: z.string(),
});
export type Receipt = z.infer<typeof Receipt>;
export const RECEIPT_VERSION = '0.2.0' as const;

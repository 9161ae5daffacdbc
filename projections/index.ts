import type { ProjectionDefinition } from './definition.js';
import { receiptsProjection } from './receipts.js';
import { txStatusProjection } from './txStatus.js';

export const allProjections: readonly ProjectionDefinition<any>[] = [txStatusProjection, receiptsProjection];
export { collectionOf, checkpointOf, type ProjectionDefinition } from './definition.js';
export { txStatusProjection, type TxStatusDocument } from './txStatus.js';
export { receiptsProjection } from './receipts.js';

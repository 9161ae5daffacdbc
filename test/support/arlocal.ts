/** arlocal for tests: the same helper the demo uses (`npm run demo`), kept in scripts/lib so scripts do not depend on test/. */
export { startArlocal, type Arlocal } from '../../scripts/lib/arlocal.js';

/**
 * The settings of a service on arlocal, set explicitly so that suites about other things do not
 * depend on the service telling arlocal from its `/info` and choosing them itself
 * (src/adapters/gateway/gatewayProfile.ts; test/e2e/arlocalDefaults.test.ts runs without them). The height guard's: tests mine 50 blocks and more at once,
 * far faster than the guard believes blocks come on Arweave. An absurd height is still refused.
 * Chunks one at a time: arlocal places each chunk after the last one it got, whatever its offset,
 * so chunks posted side by side (as to an Arweave node) would land out of order.
 */
export const ARLOCAL_HEIGHT_SETTINGS = { BLOCK_HEIGHT_MAX_JUMP: '1000000', BUNDLE_CHUNK_CONCURRENCY: '1' } as const;

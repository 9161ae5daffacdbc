/** arlocal for tests: the same helper the demo uses (`npm run demo`), kept in scripts/lib so scripts do not depend on test/. */
export { startArlocal, type Arlocal } from '../../scripts/lib/arlocal.js';

/**
 * The height guard's settings for a service on arlocal: tests mine 50 blocks and more at once, far
 * faster than the guard believes blocks come on Arweave. An absurd height is still refused.
 */
export const ARLOCAL_HEIGHT_SETTINGS = { BLOCK_HEIGHT_MAX_JUMP: '1000000' } as const;

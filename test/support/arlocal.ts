/** arlocal for tests: the same helper the demo uses (`npm run demo`), kept in scripts/lib so scripts do not depend on test/. */
export { startArlocal, type Arlocal } from '../../scripts/lib/arlocal.js';

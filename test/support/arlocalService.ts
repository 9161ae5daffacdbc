import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from './arlocal.js';
import { startTestService, type TestService } from './testService.js';

/**
 * Mocha hooks for a suite that bundles: an arlocal gateway, and the service using it with its
 * wallet funded and bundles due at once. Read `env.arlocal` and `env.service` inside tests.
 */
export function withArlocalService(
  settings: Record<string, string> = {},
  openStores?: Parameters<typeof startTestService>[1],
): { arlocal: Arlocal; service: TestService } {
  const env = {} as { arlocal: Arlocal; service: TestService };
  before(async () => {
    env.arlocal = await startArlocal();
    env.service = await startTestService({ GATEWAY_URL: env.arlocal.url, BUNDLE_MAX_WAIT_MS: '0', ...ARLOCAL_HEIGHT_SETTINGS, ...settings }, openStores);
    await env.arlocal.mint(env.service.walletAddress, '100000000000000000');
  });
  after(async () => {
    await env.service?.close();
    await env.arlocal?.stop();
  });
  return env;
}

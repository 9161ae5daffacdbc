import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService, type ServiceStores } from '../../src/service.js';
import { startGatewayInfo } from './gatewayInfo.js';

export const SERVICE_WALLET_FILE = fileURLToPath(new URL('../fixtures/test-only-service-wallet.json', import.meta.url));
export const TEST_BLOCK_HEIGHT = 1_000;

export interface TestService extends RunningService {
  dataDir: string;
  gatewayUrl: string;
  /** the stand-in gateway: its height can be changed, its `GET /info` calls counted, itself switched off and on */
  gateway: Pick<Awaited<ReturnType<typeof startGatewayInfo>>, 'setHeight' | 'requests' | 'down' | 'up'>;
  /** stop the service, the gateway, and delete the data directory */
  close(): Promise<void>;
}

/**
 * The configuration of a test service on `dataDir` (127.0.0.1, any free port, the test wallet, a
 * stand-in gateway for /info), `env` on top: for tests that restart on one data directory or log.
 */
export const testServiceConfig = (dataDir: string, gatewayUrl: string, env: Record<string, string> = {}) =>
  parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WALLET_FILE: SERVICE_WALLET_FILE,
    GATEWAY_URL: gatewayUrl,
    RECEIPT_SIGNER_WORKERS: '2',
    LOG_LEVEL: 'silent',
    // tests that bundle turn it on, or run its passes themselves
    BUNDLER_ENABLED: 'false',
    // close() cuts requests still in flight at once (test/ops/shutdown.test.ts covers the grace period)
    SHUTDOWN_GRACE_MS: '0',
    // a check is slow only because the machine is (a busy CI): never a timeout in a test of what /ready says
    READY_CHECK_TIMEOUT_MS: '120000',
    ...env,
  });

/**
 * A `block-height.json` as a service that read `height` from the gateway at `at` left it: for
 * `startTestService`'s `openStores`, to start on a saved height (with a gateway that is down).
 */
export const savedBlockHeight =
  (height: number, at: number) =>
  async (dataDir: string): Promise<ServiceStores> => {
    await writeFile(join(dataDir, 'block-height.json'), `${JSON.stringify({ height, at })}\n`);
    return {};
  };

/**
 * The whole service in-process on 127.0.0.1 port 0, with a fresh data directory; `openStores` opens
 * some of its stores in that directory instead of the configuration (to wrap them, or keep a handle).
 */
export async function startTestService(
  env: Record<string, string> = {},
  openStores: (dataDir: string) => Promise<ServiceStores> = async () => ({}),
): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'upload-service-'));
  const gateway = await startGatewayInfo(TEST_BLOCK_HEIGHT);
  const config = testServiceConfig(dataDir, gateway.url, env);
  const service = await startService(config, createLogger(config.logLevel), await openStores(dataDir));
  return {
    ...service,
    dataDir,
    gatewayUrl: gateway.url,
    gateway,
    async close() {
      await service.stop();
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

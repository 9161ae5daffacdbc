import { readdir, readlink, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLifecycle, withLifecycle, type Part } from '../../src/lifecycle.js';
import { createLogger } from '../../src/log.js';
import { startService } from '../../src/service.js';
import { eventually } from '../support/eventually.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { TEST_BLOCK_HEIGHT, testServiceConfig } from '../support/testService.js';

/** parts that write what happens to them in `seen`; `failing` names the one whose start (or stop) throws */
function recordingParts(names: string[], seen: string[], failing: { start?: string; stop?: string } = {}): Part[] {
  return names.map((name) => ({
    name,
    async start() {
      if (name === failing.start) throw new Error(`${name} cannot start`);
      seen.push(`start ${name}`);
    },
    async stop() {
      seen.push(`stop ${name}`);
      if (name === failing.stop) throw new Error(`${name} cannot stop`);
    },
  }));
}

/** the files of `dir` this process holds open (its worker threads' included: they share its descriptors) */
async function openFilesUnder(dir: string): Promise<string[]> {
  const targets = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith(dir)).sort();
}

describe('lifecycle', () => {
  it('starts its parts in order and stops them in reverse', async () => {
    const seen: string[] = [];
    const life = createLifecycle(() => undefined);
    await life.start(...recordingParts(['stores', 'projector'], seen));
    await life.start(...recordingParts(['bundler', 'http'], seen));
    expect(life.running()).to.deep.equal(['stores', 'projector', 'bundler', 'http']);
    await life.stop();
    expect(seen).to.deep.equal([
      'start stores',
      'start projector',
      'start bundler',
      'start http',
      'stop http',
      'stop bundler',
      'stop projector',
      'stop stores',
    ]);
    expect(life.running()).to.deep.equal([]);
  });

  it('unwinds a start that fails: the parts already started stop in reverse, the failed one and those after it are left alone, its error is rethrown', async () => {
    const seen: string[] = [];
    const life = createLifecycle(() => undefined);
    await life.start(...recordingParts(['stores', 'projector'], seen));
    const failed = await life.start(...recordingParts(['bundler', 'http', 'after'], seen, { start: 'http' })).catch((error: unknown) => error);
    expect((failed as Error).message).to.equal('http cannot start');
    expect(seen).to.deep.equal(['start stores', 'start projector', 'start bundler', 'stop bundler', 'stop projector', 'stop stores']);
    expect(life.running()).to.deep.equal([]);
  });

  it('rethrows the start error, not a stop that fails while unwinding; the other parts still stop and the failure is reported', async () => {
    const seen: string[] = [];
    const reported: string[] = [];
    const life = createLifecycle((part, error) => reported.push(`${part}: ${(error as Error).message}`));
    const failed = await life
      .start(...recordingParts(['stores', 'projector', 'http'], seen, { start: 'http', stop: 'projector' }))
      .catch((error: unknown) => error);
    expect((failed as Error).message).to.equal('http cannot start');
    expect(seen).to.deep.equal(['start stores', 'start projector', 'stop projector', 'stop stores']);
    expect(reported).to.deep.equal(['projector: projector cannot stop']);
  });

  it('stops every part even when one fails to stop, then rethrows that failure', async () => {
    const seen: string[] = [];
    const life = createLifecycle(() => undefined);
    await life.start(...recordingParts(['stores', 'projector', 'http'], seen, { stop: 'projector' }));
    const failed = await life.stop().catch((error: unknown) => error);
    expect((failed as Error).message).to.equal('projector cannot stop');
    expect(seen.slice(3)).to.deep.equal(['stop http', 'stop projector', 'stop stores']);
  });

  it('unwinds what was started when the wiring between two starts throws', async () => {
    const seen: string[] = [];
    const failed = await withLifecycle(
      () => undefined,
      async (life) => {
        await life.start(...recordingParts(['stores', 'projector'], seen));
        throw new Error('wiring failed');
      },
    ).catch((error: unknown) => error);
    expect((failed as Error).message).to.equal('wiring failed');
    expect(seen).to.deep.equal(['start stores', 'start projector', 'stop projector', 'stop stores']);
  });
});

describe('a service that cannot start', () => {
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  let taken: Server;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'upload-service-'));
    gateway = await startGatewayInfo(TEST_BLOCK_HEIGHT);
    taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
  });
  afterEach(async () => {
    taken.close();
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('on a port already taken: fails with EADDRINUSE, closes its stores and threads, and starts again on the same data directory', async () => {
    const port = (taken.address() as { port: number }).port;
    const log = createLogger('silent');
    const threadsBefore = (await readdir('/proc/self/task')).length;
    const failed = await startService(testServiceConfig(dataDir, gateway.url, { PORT: String(port) }), log).catch((error: unknown) => error);
    expect((failed as NodeJS.ErrnoException).code).to.equal('EADDRINUSE');
    expect(await openFilesUnder(dataDir)).to.deep.equal([]);
    // the receipt signer's workers, the event store's writer and the checkpoint threads have exited (a thread's exit is seen a moment after its worker's)
    await eventually(async () => (await readdir('/proc/self/task')).length === threadsBefore, Boolean, `${threadsBefore} threads, as before the start`);
    const service = await startService(testServiceConfig(dataDir, gateway.url), log);
    try {
      expect(await openFilesUnder(dataDir)).not.to.deep.equal([]);
      expect((await fetch(`${service.url}/info`)).status).to.equal(200);
    } finally {
      await service.stop();
    }
    expect(await openFilesUnder(dataDir)).to.deep.equal([]);
  });
});

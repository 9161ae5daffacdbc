import { expect } from 'chai';
import { startTestService, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { newEventId } from '../../src/domain/ids.js';
import { streamName } from '../../src/ports/eventStore.js';
import { createReadiness } from '../../src/http/health.js';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { join } from 'node:path';

describe('health and readiness', function () {
  this.timeout(30_000);

  describe('a running service', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(() => service.close());

    it('answers GET /health with 200 { status: ok }', async () => {
      const res = await fetch(`${service.url}/health`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(await res.json()).to.deep.equal({ status: 'ok' });
    });

    it('answers GET /ready with 200 and every check passing when the stores answer and the read models are current', async () => {
      const res = await fetch(`${service.url}/ready`);
      expect(res.status).to.equal(200);
      const body = await res.json();
      // the free space is the disk's own figure
      expect(body.checks.diskSpace.free)
        .to.be.a('number')
        .and.to.be.at.least(1024 ** 3);
      // when the gateway last answered its height (the service refreshes it in the background)
      expect(Date.parse(body.checks.blockHeight.readAt)).to.be.within(Date.now() - 120_000, Date.now());
      expect(body).to.deep.equal({
        status: 'ready',
        failed: [],
        checks: {
          eventStore: { ok: true },
          readStore: { ok: true },
          blobStore: { ok: true },
          diskSpace: { ok: true, free: body.checks.diskSpace.free, min: 1024 ** 3 },
          blockHeight: { ok: true, height: TEST_BLOCK_HEIGHT, readAt: body.checks.blockHeight.readAt },
          projectorLag: { ok: true, behind: 0, max: 10_000 },
        },
      });
    });

    it('reports shutdown first once stopping, while every store still answers', async () => {
      const readiness = createReadiness({ ...service, maxLag: 10 });
      expect((await readiness.check()).status).to.equal('ready');
      readiness.stopping();
      expect(await readiness.check()).to.deep.equal({
        status: 'stopping',
        failed: ['shutdown'],
        checks: { eventStore: { ok: true }, readStore: { ok: true }, blobStore: { ok: true } },
      });
    });

    it('serves the operations routes at the root only, not under /v1', async () => {
      for (const path of ['/v1/health', '/v1/ready', '/v1/metrics']) {
        const res = await fetch(`${service.url}${path}`);
        expect(res.status, path).to.equal(404);
        expect(await res.text(), path).to.equal('Not Found');
      }
    });
  });

  it('answers 503 naming projectorLag when the read models are further behind than READY_MAX_LAG', async () => {
    const service = await startTestService({ READY_MAX_LAG: '1' });
    try {
      await service.projections.stop();
      for (let i = 0; i < 2; i++) {
        const event = { id: newEventId(), type: 'OpsProbe', data: { i }, metadata: { correlationId: 'ops-test', schemaVersion: 1 } };
        await service.eventStore.append(streamName(`opsProbe-${i}`), [event], 'no_stream');
      }
      const res = await fetch(`${service.url}/ready`);
      expect(res.status).to.equal(503);
      const body = await res.json();
      expect(body.status).to.equal('unavailable');
      expect(body.failed).to.deep.equal(['projectorLag']);
      expect(body.checks.projectorLag).to.deep.equal({ ok: false, behind: 2, max: 1 });
      expect(body.checks.eventStore).to.deep.equal({ ok: true });
    } finally {
      await service.close();
    }
  });

  it('answers 503 naming readStore (and the lag it can no longer read) when the read store is closed', async () => {
    const service = await startTestService();
    try {
      await service.projections.stop();
      await service.readStore.close();
      const res = await fetch(`${service.url}/ready`);
      expect(res.status).to.equal(503);
      const body = await res.json();
      expect(body.status).to.equal('unavailable');
      expect(body.failed).to.deep.equal(['readStore', 'projectorLag']);
      // the error's class only: no message, no path
      expect(body.checks.readStore).to.deep.equal({ ok: false, error: 'TypeError' });
      expect(body.checks.eventStore).to.deep.equal({ ok: true });
      expect(body.checks.blobStore).to.deep.equal({ ok: true });
      // liveness is not readiness: the process still serves
      expect((await fetch(`${service.url}/health`)).status).to.equal(200);
    } finally {
      await service.close();
    }
  });

  it('fails a check whose store never answers as timeout, within the check limit, and passes the others', async () => {
    const never = () => new Promise<never>(() => {});
    const readiness = createReadiness({
      eventStore: { headPosition: never, probeWrite: async () => {} },
      readStore: { getCheckpoint: async () => undefined, probeWrite: async () => {} },
      blobStore: { stat: async () => undefined, createWriter: async () => ({ write: async () => {}, abort: async () => {} }) as never },
      maxLag: 10,
      timeoutMs: 50,
    });
    expect(await readiness.check()).to.deep.equal({
      status: 'unavailable',
      failed: ['eventStore'],
      checks: { eventStore: { ok: false, error: 'timeout' }, readStore: { ok: true }, blobStore: { ok: true } },
    });
  });

  it('waits READY_CHECK_TIMEOUT_MS for a store: one slower than the default 2 s limit is ready', async () => {
    let slow = false;
    const service = await startTestService({ READY_CHECK_TIMEOUT_MS: '60000' }, async (dataDir) => {
      const eventStore = openSqliteEventStore({ path: join(dataDir, 'events.db') });
      const head = eventStore.headPosition.bind(eventStore);
      // a store that answers, 3 s late (a disk busy with other work)
      eventStore.headPosition = async () => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 3_000));
        return head();
      };
      return { eventStore };
    });
    try {
      slow = true;
      const res = await fetch(`${service.url}/ready`);
      expect((await res.json()).checks.eventStore).to.deep.equal({ ok: true });
      expect(res.status).to.equal(200);
    } finally {
      await service.close();
    }
  });
});

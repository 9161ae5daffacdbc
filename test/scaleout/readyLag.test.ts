/**
 * Lag on the scale-out profile is counted in events: EventStoreDB's `$all` positions are transaction-log
 * byte offsets (hundreds per event), so `head - checkpoint` would say tens of thousands "behind" after
 * a hundred events, and `/ready` would take a replica out of the load balancer.
 */
import { expect } from 'chai';
import { toChecksumAddress } from '../../src/verify/index.js';
import { startScaleoutService, type ScaleoutService } from './support.js';

describe('/ready projector lag on the scale-out profile', function () {
  this.timeout(120_000);
  let service: ScaleoutService;
  before(async () => {
    service = await startScaleoutService({ READY_MAX_LAG: '150' });
  });
  after(() => service?.close());

  it('counts the lag in events: 100 events behind is within READY_MAX_LAG=150', async () => {
    await service.projections.stop();
    const address = toChecksumAddress('0x' + '4'.repeat(40));
    for (let i = 0; i < 100; i++) {
      await service.accounts.execute({ type: 'Credit', data: { address, winc: 1n, creditId: `c${i}`, now: Date.now() } }, { correlationId: 'lag' });
    }
    const res = await fetch(`${service.url}/ready`);
    const body = await res.json();
    expect(body.checks.projectorLag).to.deep.equal({ ok: true, behind: 100, max: 150 });
    expect(res.status).to.equal(200);
  });
});

import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';
import { startOpticalGateway, type OpticalGatewayDouble } from '../support/opticalGateway.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { BRIDGE_CHECKPOINT } from '../../src/app/bridge/bridgeRun.js';
import { bridgeEnv, upload } from './support.js';

const KEY = 'gateway-admin-key-for-tests';
const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
const RULES = [{ name: 'held-app', match: { tags: [{ name: 'App-Name', value: 'Held-.*' }] }, reason: 'held by a rule' }];

/** how many times each id was queued by the gateway */
const postsOf = (gateway: OpticalGatewayDouble) => {
  const counts = new Map<string, number>();
  for (const { id } of gateway.queued) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
};

/**
 * The optical bridge and the operator's holds (quarantine), against the gateway double: the header of
 * an item held at acceptance by a rule, or held before the bridge could post it (the gateway failing
 * meanwhile), nested items of a held root included, is not posted while held, and is posted once released.
 */
describe('optical bridge: held items', function () {
  this.timeout(120_000);
  let gateway: OpticalGatewayDouble;
  let service: TestService;
  afterEach(async () => {
    await service?.close();
    await gateway?.close();
  });

  const admin = (method: 'PUT' | 'DELETE', id: string) =>
    fetch(`${service.url}/admin/items/${id}/quarantine`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'ops', reason: method === 'PUT' ? 'abuse report' : 'reviewed' }),
    });

  // the holds as the bridge's reading knows them (it passes the head before each post), and as the streams
  // say them (a queue of one: the reading waits for room after each item, so each post reads its streams)
  for (const [how, more] of [
    ['known from the events read', {}],
    ['read from the streams (the reading waits for room)', { OPTICAL_BRIDGE_QUEUE_MAX: '1' }],
  ] as const)
    it(`posts no header of an item held by a rule or before the bridge got to it, nested items included, and posts them once released: ${how}`, async () => {
      gateway = await startOpticalGateway(KEY);
      service = await startTestService({
        ...bridgeEnv(gateway.url, KEY, { OPTICAL_BRIDGE_MAX_ATTEMPTS: '1000', ...more }),
        QUARANTINE_RULES: JSON.stringify(RULES),
        ADMIN_TOKEN,
      });
      // the gateway fails: every header waits in the bridge's queue
      gateway.failWith(500);
      const ruled = await signedItem(signers.arweave(), 'held from its acceptance', [{ name: 'App-Name', value: 'Held-by-rule' }]);
      const late = await signedItem(signers.arweave(), 'held while waiting');
      const kept = await signedItem(signers.ethereum(), 'never held');
      const nested = await twoLevels();
      for (const item of [ruled, late, kept, nested.root]) expect((await upload(service, item.getRaw())).status).to.equal(200);
      await nestedIndexed(service, nested.root.id);
      await eventually(
        async () => gateway.answers.get(500) ?? 0,
        (n) => n > 0,
        'a post failed',
      );
      for (const id of [late.id, nested.root.id]) expect((await admin('PUT', id)).status).to.equal(200);

      // the gateway answers again: a marker uploaded after the holds, and the bridge's checkpoint past it (every item before it done)
      gateway.failWith(undefined);
      const marker = await signedItem(signers.ethereum(), 'after the holds');
      expect((await upload(service, marker.getRaw())).status).to.equal(200);
      const markedAt = await service.eventStore.headPosition();
      await eventually(
        () => service.readStore.getCheckpoint(BRIDGE_CHECKPOINT),
        (at) => at !== undefined && at >= markedAt,
        'the bridge past the marker',
      );
      const heldIds = [ruled.id, late.id, ...[nested.root, nested.first, nested.middle, nested.last, nested.inner1, nested.inner2].map((i) => i.id)];
      expect([...postsOf(gateway)].sort()).to.deep.equal([kept.id, marker.id].map((id) => [id, 1]).sort());

      // released: posted, each once; one posted before its hold is not posted again
      expect((await admin('PUT', kept.id)).status).to.equal(200);
      for (const id of [kept.id, ruled.id, late.id, nested.root.id]) expect((await admin('DELETE', id)).status).to.equal(200);
      const releasedAt = await service.eventStore.headPosition();
      await eventually(
        () => service.readStore.getCheckpoint(BRIDGE_CHECKPOINT),
        (at) => at !== undefined && at >= releasedAt,
        'the bridge past the releases',
      );
      const everything = [...heldIds, kept.id, marker.id];
      expect([...postsOf(gateway)].sort()).to.deep.equal(everything.map((id) => [id, 1]).sort());
    });
});

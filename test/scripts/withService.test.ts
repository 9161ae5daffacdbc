import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { runCli } from './support.js';

const alice = 'alice'.padEnd(43, 'A');
const owner = 'owner'.padEnd(43, 'O');

/** The projector sees another process's appends by polling: wait for it, bounded (no timing asserted). */
async function balanceOnceProjected(url: string, address: string, winc: string): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = await (await fetch(`${url}/account/balance/${address}`)).json();
    if (body.winc === winc || Date.now() > deadline) return body;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('operator CLIs beside the running service', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('writes to the same SQLite file: the service reads the CLI credit, the CLI reads the service writes', async () => {
    const env = { DATA_DIR: service.dataDir };
    expect((await runCli('credit', [alice, '2000', '--id', 'cli-1'], env)).code).to.equal(0);
    expect(await balanceOnceProjected(service.url, alice, '2000')).to.deep.equal({
      address: alice,
      winc: '2000',
      creditedWinc: '2000',
      spentWinc: '0',
      reservedWinc: '0',
      givenApprovals: [],
    });

    await service.accounts.execute({ type: 'Credit', data: { address: alice, winc: 500n, creditId: 'service-1', now: Date.now() } }, { correlationId: 'test' });
    const before = Date.now();
    const approved = await runCli('approve', [alice, owner, '100', '--json'], env);
    const after = Date.now();
    expect(approved.code).to.equal(0);
    expect(JSON.parse(approved.stdout)).to.deep.equal({
      address: alice,
      winc: '2500',
      creditedWinc: '2500',
      spentWinc: '0',
      reservedWinc: '0',
      givenApprovals: [{ approvedAddress: owner, remainingWinc: '100' }],
    });
    const state = await service.accounts.read(alice);
    const { createdAt, ...approval } = state.approvals.get(owner)!;
    expect(approval).to.deep.equal({ remaining: 100n, approvedWinc: '100' });
    // stamped by the CLI's process as it approved
    expect(createdAt).to.be.within(before, after);
    expect(state.credited).to.equal(2500n);
  });
});

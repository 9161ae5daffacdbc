import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startTestService, SERVICE_WALLET_FILE, type TestService } from '../support/testService.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { runScript } from '../support/runScript.js';
import { toChecksumAddress } from '../../src/verify/index.js';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { createEthereumTransfers } from '../../src/adapters/ethereum/rpcTransfers.js';
import { accountStream } from '../../src/domain/account/ids.js';
import { topUpStream } from '../../src/domain/topUp/ids.js';
import { schemaVersionOf } from '../../src/domain/upcasters.js';
import type { EventStore, StreamName } from '../../src/ports/eventStore.js';

const WINC_PER_ETH = 10n ** 15n;
const CONFIRMATIONS = 2;
const WEI = 10n ** 9n;

/**
 * The audit compares top-ups with one another by their canonical transaction ids: a transfer
 * credited twice (or claimed while claimed) is a finding whatever the spellings its events use, also
 * when they were written straight into the event store, past every check of the service.
 */
describe('audit: one transfer credited twice under two spellings of its hash', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let service: TestService;
  let user: string;
  let serviceAddress: string;
  const env = () => ({
    ADDRESS_ETHEREUM: serviceAddress,
    ETHEREUM_RPC_URL: chain.url,
    TOPUP_WINC_PER_ETH: WINC_PER_ETH.toString(),
    TOPUP_ETHEREUM_CONFIRMATIONS: String(CONFIRMATIONS),
    TOPUP_CHECK_INTERVAL_MS: '86400000',
  });

  before(async () => {
    chain = await startLocalChain();
    user = toChecksumAddress(chain.accounts[0]!.address);
    serviceAddress = toChecksumAddress(chain.accounts[9]!.address);
    service = await startTestService(env());
  });
  after(async () => {
    await service?.close();
    await chain?.stop();
  });

  /** appends as a writer that skipped the service's checks would, in today's schema version (not upcast) or an older one */
  async function appendToday(eventStore: EventStore, stream: StreamName, type: string, data: Record<string, unknown>, schemaVersion = schemaVersionOf(type)) {
    let revision = -1n;
    for await (const recorded of eventStore.readStream(stream)) revision = recorded.revision;
    const metadata = { correlationId: 'written-directly', schemaVersion };
    return eventStore.append(stream, [{ id: randomUUID(), type, data, metadata }], revision < 0n ? 'no_stream' : revision);
  }

  it('reports the second credit and the second claim, in the audit and in npm run audit', async () => {
    const txId = await chain.send(user, serviceAddress, WEI);
    await chain.mine(CONFIRMATIONS);
    const claimed = await fetch(`${service.url}/account/balance/ethereum`, { method: 'POST', body: JSON.stringify({ tx_id: txId }) });
    expect(claimed.status).to.equal(200);
    const block = Number(BigInt(((await chain.request('eth_getTransactionByHash', [txId])) as { blockNumber: string }).blockNumber));
    const upper = `0x${txId.slice(2).toUpperCase()}`;
    const winc = ((WEI * WINC_PER_ETH) / 10n ** 18n).toString();
    const now = Date.now();
    const claim = { token: 'ethereum', txId: upper, sender: user, address: user, target: serviceAddress, quantity: WEI.toString(), winc, confirmed: true };
    await appendToday(service.eventStore, topUpStream(`ethereum:${upper}`), 'TopUpClaimed', { ...claim, timestamp: now });
    const onChain = { token: 'ethereum', txId: upper, sender: user, target: serviceAddress, quantity: WEI.toString(), blockHeight: block };
    const { position } = await appendToday(service.eventStore, accountStream(user), 'AccountCredited', {
      address: user,
      winc,
      creditId: `ethereum:${upper}`,
      onChain,
      timestamp: now,
    });
    await service.projections.waitFor(position, 10_000);

    const findings: Finding[] = [];
    const transfers = new Map([['ethereum', createEthereumTransfers({ rpcUrl: chain.url, timeoutMs: 10_000 })]]);
    await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, transfers, now: Date.now }, (f) =>
      findings.push(f),
    );
    const twice = [
      {
        kind: 'top-up-twice',
        id: user,
        detail: `ethereum transaction ${upper} claimed in topUp-ethereum:${upper} while claimed in topUp-ethereum:${txId}`,
      },
      {
        kind: 'top-up-mismatch',
        id: user,
        detail: `ethereum transaction ${upper} credited under credit id ethereum:${upper}`,
      },
      {
        kind: 'top-up-twice',
        id: user,
        detail: `ethereum transaction ${upper} credited to ${user} (credit id ethereum:${upper}), credited before to ${user} (credit id ethereum:${txId})`,
      },
    ];
    expect(findings).to.deep.equal(twice);

    const run = await runScript('audit', [], { DATA_DIR: service.dataDir, WALLET_FILE: SERVICE_WALLET_FILE, ...env() });
    expect(run.code, run.stderr).to.equal(1);
    for (const finding of twice) expect(run.stdout).to.include(`${finding.kind.padEnd(20)} ${finding.id}  ${finding.detail}`);
  });

  it('reports a transfer an earlier version credited twice under two spellings (read canonical), and no balance difference', async () => {
    const txId = await chain.send(user, serviceAddress, 3n * WEI);
    await chain.mine(CONFIRMATIONS);
    const block = Number(BigInt(((await chain.request('eth_getTransactionByHash', [txId])) as { blockNumber: string }).blockNumber));
    const winc = ((3n * WEI * WINC_PER_ETH) / 10n ** 18n).toString();
    const upper = `0x${txId.slice(2).toUpperCase()}`;
    let position = 0n;
    for (const spelled of [txId, upper]) {
      const claim = { token: 'ethereum', txId: spelled, sender: user, address: user, target: serviceAddress, quantity: (3n * WEI).toString(), winc };
      await appendToday(service.eventStore, topUpStream(`ethereum:${spelled}`), 'TopUpClaimed', { ...claim, confirmed: true, timestamp: Date.now() }, 1);
      const onChain = { token: 'ethereum', txId: spelled, sender: user, target: serviceAddress, quantity: (3n * WEI).toString(), blockHeight: block };
      const credit = { address: user, winc, creditId: `ethereum:${spelled}`, onChain, timestamp: Date.now() };
      ({ position } = await appendToday(service.eventStore, accountStream(user), 'AccountCredited', credit, 1));
    }
    await service.projections.waitFor(position, 10_000);

    const findings: Finding[] = [];
    const transfers = new Map([['ethereum', createEthereumTransfers({ rpcUrl: chain.url, timeoutMs: 10_000 })]]);
    await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, transfers, now: Date.now }, (f) =>
      findings.push(f),
    );
    expect(findings.filter((f) => f.detail.includes(txId))).to.deep.equal([
      { kind: 'top-up-twice', id: user, detail: `ethereum transaction ${txId} claimed in topUp-ethereum:${upper} while claimed in topUp-ethereum:${txId}` },
      {
        kind: 'top-up-twice',
        id: user,
        detail: `ethereum transaction ${txId} credited to ${user} (credit id ethereum:${txId}), credited before to ${user} (credit id ethereum:${txId})`,
      },
    ]);
    expect(findings.filter((f) => f.kind.startsWith('balance'))).to.deep.equal([]);
  });
});

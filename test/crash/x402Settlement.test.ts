import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { getAddress, type Hex } from 'viem';
import type { PaymentRequirements } from 'x402/types';
import { startServiceProcess, type ServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { x402PaymentId } from '../../src/domain/x402/decider.js';
import { startGatewayInfo, type GatewayInfo } from '../support/gatewayInfo.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { startLocalChain, type LocalChain } from '../support/ganache.js';
import { deployTestUsdc, type TestUsdc } from '../support/testUsdc.js';
import { eventually } from '../support/eventually.js';
import { runScript } from '../support/runScript.js';
import { BASE_SEPOLIA_CHAIN_ID, decodeHeader, payerWallet, paymentHeader, type PayerWallet } from '../x402/support.js';
import { startFaultyRpc, type FaultyRpc } from '../x402/faultyRpc.js';

const WINC_PER_BYTE = 1000n;
const WINC_PER_USDC = 3_000_000_000n;
/** the recovery and the audit leave a settlement this long to its upload: 7 × X402_RPC_TIMEOUT_MS */
const RPC_TIMEOUT_MS = 2000;

interface AuditReport {
  findings: { kind: string; id: string; detail: string }[];
  checked: Record<string, number>;
}

/**
 * The service (dist/, as `npm start` runs it) SIGKILLed inside an x402 payment, at the settlement's
 * `eth_sendRawTransaction` (the JSON-RPC proxy in front of ganache kills it while the service waits on
 * that answer): after the transaction was mined, the settled payment is credited to its payer by the
 * restarted service's recovery pass; before it was sent, the settlement is recorded failed once the
 * authorization expires, nothing charged. The audit (`npm run audit`, reading the chain) finds the
 * settled, uncredited payment after the kill, and nothing once the service has recovered.
 */
describe('x402: SIGKILL between the settlement and the receipt', function () {
  this.timeout(240_000);
  let chain: LocalChain;
  let rpc: FaultyRpc;
  let usdc: TestUsdc;
  let gateway: GatewayInfo;
  let keyDir: string;
  let payer: PayerWallet;
  let recipient: Hex;
  const dirs: string[] = [];
  const running = new Set<ServiceProcess>();

  before(async () => {
    chain = await startLocalChain({ chainId: BASE_SEPOLIA_CHAIN_ID });
    const [deployer, client, settler, to] = chain.accounts;
    usdc = await deployTestUsdc(chain.url, BASE_SEPOLIA_CHAIN_ID, deployer!.privateKey as Hex);
    payer = payerWallet(chain.url, client!.privateKey as Hex);
    recipient = getAddress(to!.address);
    await usdc.mint(payer.account.address, 100_000_000n);
    rpc = await startFaultyRpc(chain.url);
    gateway = await startGatewayInfo(500);
    keyDir = await mkdtemp(join(tmpdir(), 'x402-crash-key-'));
    await writeFile(join(keyDir, 'settler.key'), settler!.privateKey, { mode: 0o600 });
  });
  after(async () => {
    for (const service of running) await service.kill();
    await rpc?.close();
    await gateway?.close();
    await chain?.stop();
    for (const dir of [keyDir, ...dirs]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  const envFor = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'x402-crash-'));
    dirs.push(dataDir);
    return {
      DATA_DIR: dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
      GATEWAY_URL: gateway.url,
      FREE_UPLOAD_LIMIT_BYTES: '100',
      PRICE_WINC_PER_BYTE: WINC_PER_BYTE.toString(),
      RECONCILE_INTERVAL_MS: '200',
      X402_WINC_PER_USDC: WINC_PER_USDC.toString(),
      X402_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
      X402_NETWORKS: JSON.stringify([
        {
          network: 'base-sepolia',
          chainId: BASE_SEPOLIA_CHAIN_ID,
          rpcUrl: rpc.url,
          usdc: usdc.address,
          payTo: recipient,
          keyFile: join(keyDir, 'settler.key'),
        },
      ]),
    };
  };
  const start = async (env: Record<string, string>) => {
    const service = await startServiceProcess(env);
    running.add(service);
    return service;
  };
  const kill = async (service: ServiceProcess) => {
    await service.kill();
    running.delete(service);
  };
  const post = (url: string, body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${url}/x402/data-item/signed`, { method: 'POST', body: asBody(body), headers: { 'content-type': 'application/octet-stream', ...headers } });
  const requirementsFor = async (url: string, item: Uint8Array) => ((await (await post(url, item)).json()) as { accepts: PaymentRequirements[] }).accepts[0]!;
  const balanceOf = async (url: string, address: string) =>
    ((await (await fetch(`${url}/account/balance/ethereum?address=${address}`)).json()) as { balance: string }).balance;
  const audit = async (env: Record<string, string>): Promise<AuditReport & { code: number | null }> => {
    const { code, stdout, stderr } = await runScript('audit', ['--json'], env);
    try {
      return { code, ...(JSON.parse(stdout) as AuditReport) };
    } catch {
      throw new Error(`the audit printed no report (exit ${code}): ${stderr}`);
    }
  };
  const x402Findings = (report: AuditReport) => report.findings.filter((f) => f.kind.startsWith('x402-'));

  it('credits a payment settled on chain whose answer the killed service never got, once; the audit finds it until then', async () => {
    const env = await envFor();
    const first = await start(env);
    const item = await signedItem(signers.arweave(), new Uint8Array(1000));
    const header = await paymentHeader(payer, await requirementsFor(first.url, item.getRaw()));
    const { value, nonce } = decodeHeader(header).payload.authorization;
    const paymentId = x402PaymentId('base-sepolia', payer.account.address, nonce);
    const usdcBefore = await usdc.balanceOf(payer.account.address);

    rpc.onSend = { when: 'after', run: () => kill(first) };
    const cut = await post(first.url, item.getRaw(), { 'x-payment': header }).then(
      (res) => `answered ${res.status}`,
      () => 'cut',
    );
    expect(cut).to.equal('cut');
    // the transaction was mined: the payer paid, and no receipt was given
    expect(await usdc.authorizationState(payer.account.address, nonce as Hex)).to.equal(true);
    expect(await usdc.balanceOf(payer.account.address)).to.equal(usdcBefore - BigInt(value));

    const found = await eventually(
      () => audit(env),
      (report) => x402Findings(report).length > 0,
      'the audit judges the settlement once its grace is over',
    );
    expect(x402Findings(found)).to.deep.equal([
      { kind: 'x402-unresolved', id: payer.account.address, detail: `${paymentId} settled on chain for item ${item.id} and never credited` },
    ]);

    const second = await start(env);
    const credit = ((BigInt(value) * WINC_PER_USDC) / 10n ** 6n).toString();
    await eventually(
      () => balanceOf(second.url, payer.account.address),
      (b) => b === credit,
      'the recovery pass credits the settled payment',
    );
    expect((await fetch(`${second.url}/tx/${item.id}/status`)).status).to.equal(404);
    // the same authorization pays nothing more
    const replay = await post(second.url, item.getRaw(), { 'x-payment': header });
    expect(replay.status).to.equal(402);
    expect(((await replay.json()) as { error: string }).error).to.equal('authorization already used');

    const clean = await audit(env);
    expect({ code: clean.code, findings: clean.findings }).to.deep.equal({ code: 0, findings: [] });
    expect([clean.checked.x402Payments, clean.checked.x402InFlight]).to.deep.equal([1, 0]);
    await second.stop();
    running.delete(second);
    expect(await balanceOf((await start(env)).url, payer.account.address)).to.equal(credit);
  });

  it('records failed, crediting nothing, a settlement the killed service never sent, once its authorization expired', async () => {
    const env = await envFor();
    const first = await start(env);
    const item = await signedItem(signers.arweave(), new Uint8Array(1000));
    // valid for 30 s: x402's verify asks for at least 6 more seconds
    const validBefore = String(Math.floor(Date.now() / 1000) + 30);
    const header = await paymentHeader(payer, await requirementsFor(first.url, item.getRaw()), () => ({ validBefore }));
    const { nonce } = decodeHeader(header).payload.authorization;
    const usdcBefore = await usdc.balanceOf(payer.account.address);

    rpc.onSend = { when: 'before', run: () => kill(first) };
    const cut = await post(first.url, item.getRaw(), { 'x-payment': header }).then(
      (res) => `answered ${res.status}`,
      () => 'cut',
    );
    expect(cut).to.equal('cut');
    expect(await usdc.authorizationState(payer.account.address, nonce as Hex)).to.equal(false);

    const second = await start(env);
    // the chain's time moves with its blocks: one mined each look, until it passes validBefore
    const ended = await eventually(
      async () => {
        await chain.mine();
        return audit(env);
      },
      (report) => report.checked.x402InFlight === 0 && report.checked.x402Payments === 1,
      'the recovery pass records the expired settlement failed',
      120_000,
    );
    expect({ code: ended.code, findings: ended.findings }).to.deep.equal({ code: 0, findings: [] });
    expect(await usdc.balanceOf(payer.account.address)).to.equal(usdcBefore);
    expect(await balanceOf(second.url, payer.account.address)).to.equal('0');
    expect((await fetch(`${second.url}/tx/${item.id}/status`)).status).to.equal(404);
  });
});

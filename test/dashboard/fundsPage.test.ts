import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ARLOCAL_HEIGHT_SETTINGS, startArlocal, type Arlocal } from '../support/arlocal.js';
import { startTestService, type TestService } from '../support/testService.js';
import { uploadItems } from '../bundler/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];

/**
 * The status page while the service wallet cannot pay for a bundle (arlocal, the wallet never
 * funded): a banner naming the address to fund, the balance in AR and winston with when it was
 * read, the bundles waiting; funded, the banner goes.
 */
describe('dashboard: the service wallet funds in a browser', function () {
  this.timeout(120_000);
  let arlocal: Arlocal;
  let service: TestService;
  let browser: Browser;
  let page: Page;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`these tests need headless Chromium at ${CHROMIUM} (Debian package "chromium")`);
    arlocal = await startArlocal();
    service = await startTestService({
      GATEWAY_URL: arlocal.url,
      ...ARLOCAL_HEIGHT_SETTINGS,
      BUNDLER_ENABLED: 'true',
      BUNDLER_INTERVAL_MS: '200',
      WALLET_BALANCE_REFRESH_MS: '200',
      BUNDLE_MAX_WAIT_MS: '0',
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  });
  after(async () => {
    await page?.close();
    await browser?.close();
    await service?.close();
    await arlocal?.stop();
  });

  const text = async (selector: string) => (await page.textContent(selector))?.trim();
  /** winston in AR, every digit kept: 1500000000000 is `1.5 AR` */
  const arOf = (w: bigint) => {
    const fraction = (w % 10n ** 12n).toString().padStart(12, '0').replace(/0+$/, '');
    return `${w / 10n ** 12n}${fraction ? `.${fraction}` : ''} AR`;
  };

  it('shows a banner naming the wallet to fund while a bundle waits, and the balance; funded, the banner goes', async () => {
    const address = service.walletAddress;
    await uploadItems(service, [1_000]);
    await page.goto(`${service.url}/dashboard`);
    await page.waitForSelector('#funds-banner', { state: 'visible', timeout: 60_000 });
    const { funds } = await (await fetch(`${service.url}/dashboard/api/summary`)).json();
    expect(await text('#funds-banner')).to.equal(
      `The service wallet cannot pay for 1 bundle: fund ${address} (at least ${arOf(BigInt(funds.shortBy))} more). Their items wait; none is lost.`,
    );
    expect(await text('#funds-address')).to.equal(address);
    expect(await text('#funds-balance-ar')).to.equal('0 AR');
    expect(await text('#funds-balance-winston')).to.equal('0 winston');
    expect(await text('#funds-read-at')).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/);
    expect(await text('#funds-waiting')).to.equal('1');
    expect(await page.getAttribute('#funds-waiting-row', 'class')).to.equal('alarm');
    await page.screenshot({ path: join(tmpdir(), 'dashboard-funds.png'), fullPage: true });

    await arlocal.mint(address, '1500000000000');
    await page.waitForSelector('#funds-banner', { state: 'hidden', timeout: 60_000 });
    await page.waitForFunction(() => document.getElementById('funds-waiting')?.textContent === '0', undefined, { timeout: 30_000 });
    // the balance as the page last showed it, at most the minted amount (arlocal takes the reward once mined)
    const winston = (await text('#funds-balance-winston'))!.replace(/ winston$/, '');
    expect(BigInt(winston) > 0n && BigInt(winston) <= 1_500_000_000_000n, winston).to.equal(true);
    expect(await text('#funds-balance-ar')).to.equal(arOf(BigInt(winston)));
  });
});

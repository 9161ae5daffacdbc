import { crc32, deflateSync } from 'node:zlib';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';

/** Debian's chromium (CI installs it): the test fails, not skips, without it */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}
/** a `width` x `height` opaque RGB PNG, made here so the test depends on no image file */
function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  const rows = Buffer.concat(
    Array.from({ length: height }, (_, y) => Buffer.from([0, ...Array.from({ length: width }, (_, x) => [x * 8, y * 8, 128]).flat()])),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('items read back in a browser', function () {
  this.timeout(120_000);
  let service: TestService;
  let browser: Browser;
  before(async () => {
    service = await startTestService();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  const upload = async (item: DataItem) => {
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
  };

  it('loads an uploaded HTML page by its id, and the PNG image it names by id decodes', async () => {
    const image = await signedItem(signers.arweave(), png(24, 16), [{ name: 'Content-Type', value: 'image/png' }]);
    const page = await signedItem(
      signers.ethereum(),
      `<!doctype html><html><head><title>read back</title></head><body><h1>hello permaweb</h1><img id="pic" src="/${image.id}"></body></html>`,
      [{ name: 'Content-Type', value: 'text/html' }],
    );
    await upload(image);
    await upload(page);
    const tab = await browser.newPage();
    try {
      const res = await tab.goto(`${service.url}/${page.id}`);
      expect(res?.status()).to.equal(200);
      expect(await tab.title()).to.equal('read back');
      expect(await tab.textContent('h1')).to.equal('hello permaweb');
      await tab.waitForFunction(() => (document.getElementById('pic') as HTMLImageElement).complete, undefined, { timeout: 60_000 });
      const size = await tab.evaluate(() => {
        const img = document.getElementById('pic') as HTMLImageElement;
        return [img.naturalWidth, img.naturalHeight];
      });
      expect(size).to.deep.equal([24, 16]);
    } finally {
      await tab.close();
    }
  });
});

/**
 * What indexing a bundle item's nested entries costs the rest of the service: a bystander asks
 * `GET /info` one request after another while a bundle item full of attacker-made entries (an
 * ed25519 header with the right id and a random signature, test/nested/support/fakeEntries.ts) is
 * uploaded and indexed, until the nested-offsets read model reflects the whole index. Prints the
 * bystander's worst latency and the event loop's worst delay over that window, next to the same
 * figures for a window of the same length with nothing else happening (the baseline).
 *
 *   npx tsx scripts/bench/nested-index.ts [--entries 2800] [--genuine] [--json]
 *
 * `--genuine`: the entries are real items (ed25519, signed here) rather than forgeries, so every
 * one of them gets a document in the nested-offsets read model.
 *
 * An item above FREE_UPLOAD_LIMIT_BYTES is paid: its owner is credited first (admin API). The
 * service runs in this process (the bystander's own requests wait on the same event loop, which is
 * what a client of a stalled process sees); the stores are the embedded ones in a temp directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ArweaveSigner, createData } from 'arbundles';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { loadTestJwk, testWalletFile } from '../../test/fixtures/testWallet.js';
import { ed25519Key, fakeBundle, genuineEntry, rawBundle } from '../../test/nested/support/fakeEntries.js';
import { emitJson, round, say } from './lib/output.js';
import { benchGatewayUrl } from './lib/heightGateway.js';

const { values } = parseArgs({
  options: { entries: { type: 'string', default: '2800' }, genuine: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
});
const entries = Number(values.entries);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

interface Window {
  worstInfoMs: number;
  infoAnswers: number;
  worstLoopDelayMs: number;
  seconds: number;
}

/** `GET /info` one after another until `done` resolves; the worst latency and the loop's worst delay */
async function bystander(url: string, done: Promise<unknown>): Promise<Window> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let finished = false;
  void done.finally(() => (finished = true));
  let worst = 0;
  let answers = 0;
  const started = performance.now();
  while (!finished) {
    const t0 = performance.now();
    const res = await fetch(`${url}/info`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/info answered ${res.status}`);
    worst = Math.max(worst, performance.now() - t0);
    answers++;
  }
  loop.disable();
  return { worstInfoMs: worst, infoAnswers: answers, worstLoopDelayMs: loop.max / 1e6, seconds: (performance.now() - started) / 1000 };
}

/** resolves once the root's stream holds its whole nested index and the read models reflect it */
async function indexed(service: RunningService, rootId: string): Promise<void> {
  // only the events not seen yet are read each time: the parts of a large index are 30 MB together
  let from = 0n;
  for (let complete = false; !complete;) {
    for await (const e of service.eventStore.readStream(dataItemStream(rootId as DataItemId), { fromRevision: from })) {
      from = e.revision + 1n;
      if (e.type === 'NestedItemsIndexed' && (e.data as { more?: boolean }).more !== true) complete = true;
    }
    if (!complete) await new Promise((r) => setTimeout(r, 50));
  }
  if (!(await service.projections.waitFor(await service.eventStore.headPosition(), 600_000))) throw new Error('projection did not catch up');
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'nested-index-bench-'));
  const jwk = loadTestJwk();
  const signer = new ArweaveSigner(jwk);
  say(`making a bundle item of ${entries} ${values.genuine ? 'genuine' : 'fake'} entries...`);
  const key = ed25519Key();
  const payload = values.genuine ? rawBundle(Array.from({ length: entries }, () => genuineEntry(key))) : fakeBundle(entries);
  const root = createData(payload, signer, {
    tags: [
      { name: 'Bundle-Format', value: 'binary' },
      { name: 'Bundle-Version', value: '2.0.0' },
    ],
  });
  await root.sign(signer);
  const raw = root.getRaw();
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WALLET_FILE: testWalletFile,
    GATEWAY_URL: await benchGatewayUrl(),
    LOG_LEVEL: 'silent',
    BUNDLER_ENABLED: 'false',
    ADMIN_TOKEN,
  });
  const service = await startService(config, createLogger(config.logLevel));
  try {
    const paid = raw.length > config.freeUploadLimitBytes;
    if (paid) {
      const address = createHash('sha256').update(root.rawOwner).digest('base64url');
      const res = await fetch(`${service.url}/admin/accounts/${address}/credit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ winc: '1000000000000000000' }),
      });
      if (res.status !== 200) throw new Error(`credit answered ${res.status}: ${await res.text()}`);
    }
    say(`${raw.length} bytes (${paid ? 'paid' : 'free'}), ${entries} ${values.genuine ? 'genuine' : 'fake'} entries`);

    let uploadMs = 0;
    const work = (async () => {
      const t0 = performance.now();
      const res = await fetch(`${service.url}/tx`, { method: 'POST', body: new Uint8Array(raw), headers: { 'content-type': 'application/octet-stream' } });
      await res.arrayBuffer();
      uploadMs = performance.now() - t0;
      if (res.status !== 200) throw new Error(`upload answered ${res.status}`);
      await indexed(service, root.id);
    })();
    const during = await bystander(service.url, work);
    await work;
    let idleUntil: (() => void) | undefined;
    const idle = new Promise<void>((r) => (idleUntil = r));
    setTimeout(() => idleUntil!(), during.seconds * 1000);
    const baseline = await bystander(service.url, idle);

    say(`upload answered after ${round(uploadMs)} ms; indexed and projected after ${round(during.seconds, 2)} s`);
    say(
      `bystander GET /info during upload and indexing: worst ${round(during.worstInfoMs)} ms over ${during.infoAnswers} answers; event loop worst delay ${round(during.worstLoopDelayMs)} ms`,
    );
    say(
      `baseline (nothing else running, same length): worst ${round(baseline.worstInfoMs)} ms over ${baseline.infoAnswers} answers; event loop worst delay ${round(baseline.worstLoopDelayMs)} ms`,
    );
    emitJson({
      benchmark: 'nested-index',
      entries,
      genuine: values.genuine,
      bytes: raw.length,
      paid,
      uploadMs: round(uploadMs),
      indexedSeconds: round(during.seconds, 2),
      worstInfoMs: round(during.worstInfoMs),
      worstLoopDelayMs: round(during.worstLoopDelayMs),
      baselineWorstInfoMs: round(baseline.worstInfoMs),
      baselineWorstLoopDelayMs: round(baseline.worstLoopDelayMs),
    });
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createBlockHeightSource, type BlockHeightSourceOptions } from '../../src/adapters/gateway/blockHeight.js';
import { createHeightGuard, REORG_TOLERANCE_BLOCKS } from '../../src/adapters/gateway/heightGuard.js';
import { startFakeGateway } from './fakeGateway.js';

type FakeGateway = Awaited<ReturnType<typeof startFakeGateway>>;

describe('gateway block height source', () => {
  let dir: string;
  let stateFile: string;
  let gateway: FakeGateway | undefined;
  let logged: string[];
  /** the time the source and its guard see (heights' ages), moved by hand */
  let clock: number;
  const sources: { stop(): void }[] = [];
  const iso = (ms: number) => new Date(ms).toISOString();
  const MAX_AGE = 30 * 60_000;
  /** the failure a "gateway lost" line names */
  const firstError = (line: string) => /^block height: gateway lost \((.*)\); /.exec(line)?.[1];

  /** a source on the test gateway whose log lines are kept; long start wait so the first answer counts */
  function source(options: Partial<BlockHeightSourceOptions> = {}) {
    const log = (message: string) => logged.push(message);
    const s = createBlockHeightSource({
      gatewayUrl: gateway!.url,
      stateFile,
      startWaitMs: 30_000,
      maxAgeMs: MAX_AGE,
      log,
      now: () => clock,
      guard: createHeightGuard({ now: () => clock, log }),
      ...options,
    });
    sources.push(s);
    return s;
  }

  /** the state file's height; its `at` (when the height was accepted) is checked where it matters */
  const savedHeight = async () => {
    const { height, at } = JSON.parse(await readFile(stateFile, 'utf8')) as { height: unknown; at: unknown };
    expect(at).to.be.a('number');
    return { height };
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'block-height-test-'));
    stateFile = join(dir, 'block-height.json');
    logged = [];
    clock = Date.now();
  });
  afterEach(async () => {
    for (const s of sources.splice(0)) s.stop();
    await gateway?.close().catch(() => {});
    gateway = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('fetches the height from GET /info on start and saves it in the state file, with when it was read', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const heights = source();
    await heights.start();

    expect(heights.current()).to.equal(1_500_000);
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).to.deep.equal({ height: 1_500_000, at: clock });
    expect(heights.health()).to.deep.equal({ height: 1_500_000, readAt: clock, fresh: true, maxAgeMs: MAX_AGE, reachable: true });
    expect(await readdir(dir)).to.deep.equal(['block-height.json']);
    expect(logged).to.deep.equal([]);
  });

  it('keeps the last height, and logs once that the gateway is lost, when it answers 500 and then refuses connections', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const heights = source();
    await heights.start();
    const readAt = clock;

    clock += 60_000;
    gateway.set({ answer: 'error', status: 500 });
    await heights.refresh();
    expect(heights.current()).to.equal(1_500_000);

    await gateway.close();
    clock += 60_000;
    await heights.refresh();
    await heights.refresh();
    expect(heights.current()).to.equal(1_500_000);
    expect(heights.health()).to.deep.equal({
      height: 1_500_000,
      readAt,
      fresh: true,
      maxAgeMs: MAX_AGE,
      reachable: false,
      lastError: `GET ${gateway.url}/info failed (ECONNREFUSED)`,
      lastErrorAt: clock,
    });

    expect(logged).to.deep.equal([
      `block height: gateway lost (GET ${gateway.url}/info answered HTTP 500); keeping block height 1500000 read at ${iso(readAt)}, until ${iso(readAt + MAX_AGE)}`,
    ]);
    expect(await savedHeight()).to.deep.equal({ height: 1_500_000 });
  });

  it('starts from the saved height after a restart while the gateway is down', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const before = source();
    await before.start();
    before.stop();
    await gateway.close();

    const after = source();
    await after.start();

    expect(after.current()).to.equal(1_500_000);
  });

  it('answers no height when none was ever read and the gateway is unreachable', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1 });
    await gateway.close();
    const heights = source();
    await heights.start();
    await heights.refresh();

    expect(heights.current()).to.equal(undefined);
    expect(heights.health()).to.deep.equal({
      fresh: false,
      maxAgeMs: MAX_AGE,
      reachable: false,
      lastError: `GET ${gateway.url}/info failed (ECONNREFUSED)`,
      lastErrorAt: clock,
    });
    expect(logged).to.deep.equal([
      `block height: gateway lost (GET ${gateway.url}/info failed (ECONNREFUSED)); no block height known: uploads answer 503 until the gateway answers`,
    ]);
  });

  it('answers the height while younger than maxAgeMs, then none; logs the loss and the age once each', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const heights = source();
    await heights.start();
    const readAt = clock;
    await gateway.close();
    for (let i = 0; i < 3; i++) await heights.refresh();

    clock = readAt + MAX_AGE;
    expect(heights.current()).to.equal(1_500_000);
    clock += 1;
    expect(heights.current()).to.equal(undefined);
    for (let i = 0; i < 3; i++) await heights.refresh();
    expect(heights.current()).to.equal(undefined);
    expect(heights.health()).to.deep.include({ height: 1_500_000, readAt, fresh: false, reachable: false });
    // the kept-alive connection of the first request may be the one that fails (UND_ERR_SOCKET)
    expect(logged).to.have.length(2);
    expect(logged[0]).to.equal(
      `block height: gateway lost (${firstError(logged[0]!)}); keeping block height 1500000 read at ${iso(readAt)}, until ${iso(readAt + MAX_AGE)}`,
    );
    expect(firstError(logged[0]!)).to.match(/^GET http:\/\/127\.0\.0\.1:\d+\/info failed \((ECONNREFUSED|UND_ERR_SOCKET)\)$/);
    expect(logged.slice(1)).to.deep.equal([
      `block height 1500000 read at ${iso(readAt)} is older than BLOCK_HEIGHT_MAX_AGE_MS (${MAX_AGE} ms): uploads answer 503 until the gateway answers`,
    ]);
  });

  it('logs the gateway back once it answers again, with its height fresh from then', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const heights = source();
    await heights.start();
    gateway.set({ answer: 'error', status: 502 });
    await heights.refresh();
    clock += MAX_AGE + 1;
    expect(heights.current()).to.equal(undefined);

    gateway.set({ answer: 'height', height: 1_500_010 });
    await heights.refresh();
    await heights.refresh();
    expect(heights.current()).to.equal(1_500_010);
    expect(heights.health()).to.deep.equal({ height: 1_500_010, readAt: clock, fresh: true, maxAgeMs: MAX_AGE, reachable: true });
    expect(logged.slice(1)).to.deep.equal([
      `block height 1500000 read at ${iso(clock - MAX_AGE - 1)} is older than BLOCK_HEIGHT_MAX_AGE_MS (${MAX_AGE} ms): uploads answer 503 until the gateway answers`,
      'block height: gateway back (it answers 1500010)',
    ]);
  });

  it('saves when each height was read, the same height too: a restart counts the age from the last answer', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const heights = source();
    await heights.start();
    clock += 20 * 60_000;
    await heights.refresh();
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).to.deep.equal({ height: 1_500_000, at: clock });
    heights.stop();
    await gateway.close();

    clock += 20 * 60_000;
    const restarted = source();
    await restarted.start();
    expect(restarted.current()).to.equal(1_500_000);
    clock += 10 * 60_000 + 1;
    expect(restarted.current()).to.equal(undefined);
  });

  it('gives no height from a state file older than maxAgeMs, or one that does not say when it was read, until the gateway answers', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1 });
    await gateway.close();
    await writeFile(stateFile, JSON.stringify({ height: 1_500_000, at: clock - MAX_AGE - 1 }));
    const old = source();
    await old.start();
    expect(old.current()).to.equal(undefined);
    expect(old.health()).to.deep.include({ height: 1_500_000, readAt: clock - MAX_AGE - 1, fresh: false });
    expect(logged).to.deep.equal([
      `block height: gateway lost (GET ${gateway.url}/info failed (ECONNREFUSED)); block height 1500000 read at ${iso(clock - MAX_AGE - 1)} is too old to sign receipts with: uploads answer 503 until the gateway answers`,
    ]);

    await writeFile(stateFile, '{"height":1500000}\n');
    const undated = source();
    await undated.start();
    expect(undated.current()).to.equal(undefined);
    expect(undated.health()).to.deep.include({ height: 1_500_000, fresh: false });
    expect(undated.health().readAt).to.equal(undefined);
  });

  it('refreshes on its interval and saves each new height', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 100 });
    const heights = source({ refreshMs: 5 });
    await heights.start();
    gateway.set({ answer: 'height', height: 101 });

    // Refreshes never overlap, so when the third request arrives the second one is fully handled.
    await gateway.nextRequest(3);

    expect(heights.current()).to.equal(101);
    expect(await savedHeight()).to.deep.equal({ height: 101 });
  });

  it('does not hold start() up while the gateway does not answer', async () => {
    gateway = await startFakeGateway({ answer: 'never' });
    const heights = source({ startWaitMs: 20, fetchTimeoutMs: 600_000 });
    const asked = gateway.nextRequest(1);
    await heights.start();
    await asked;

    expect(heights.current()).to.equal(undefined);
    expect(heights.health()).to.deep.equal({ fresh: false, maxAgeMs: MAX_AGE, reachable: false });
    expect(logged).to.deep.equal([]);
  });

  it('gives up a request after fetchTimeoutMs', async () => {
    gateway = await startFakeGateway({ answer: 'never' });
    const heights = source({ fetchTimeoutMs: 50 });
    await heights.start();

    expect(logged).to.deep.equal([
      `block height: gateway lost (GET ${gateway.url}/info timed out after 50 ms); no block height known: uploads answer 503 until the gateway answers`,
    ]);
  });

  it('ignores an answer without a valid height', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 7 });
    const heights = source();
    await heights.start();

    for (const body of ['{"height":"8"}', '{"height":-1}', '{"height":8.5}', 'null', 'not json']) {
      gateway.set({ answer: 'body', body });
      await heights.refresh();
    }

    expect(heights.current()).to.equal(7);
    expect(heights.health().lastError).to.equal(`GET ${gateway.url}/info answered without a valid "height"`);
    expect(logged).to.deep.equal([
      `block height: gateway lost (GET ${gateway.url}/info answered without a valid "height"); keeping block height 7 read at ${iso(clock)}, until ${iso(clock + MAX_AGE)}`,
    ]);
  });

  it('logs and ignores a state file that does not hold a height', async () => {
    await writeFile(stateFile, '{"height":');
    gateway = await startFakeGateway({ answer: 'height', height: 9 });
    const heights = source();
    await heights.start();

    expect(heights.current()).to.equal(9);
    expect(logged).to.deep.equal([`block height state ignored: ${stateFile} does not hold a block height`]);
    expect(await savedHeight()).to.deep.equal({ height: 9 });
  });

  it('logs a height it cannot save, keeps using it, and saves it on a later refresh', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 12 });
    const missingDir = join(dir, 'not-yet');
    const heights = source({ stateFile: join(missingDir, 'block-height.json') });
    await heights.start();
    expect(heights.current()).to.equal(12);
    expect(logged).to.deep.equal([`block height 12 not saved to ${join(missingDir, 'block-height.json')}`]);

    await mkdir(missingDir);
    await heights.refresh();
    expect(JSON.parse(await readFile(join(missingDir, 'block-height.json'), 'utf8'))).to.deep.include({ height: 12 });
  });

  it('keeps the last good height, unsaved refusals, when the gateway answers 9007199254740991, a height far behind, or a jump; logs each once', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_000 });
    const heights = source();
    await heights.start();
    const file = await readFile(stateFile, 'utf8');

    for (const lie of [9_007_199_254_740_991, 1_500_000 - REORG_TOLERANCE_BLOCKS - 1, 1_500_000 + 10_000]) {
      gateway.set({ answer: 'height', height: lie });
      await heights.refresh();
      await heights.refresh();
      expect(heights.current(), String(lie)).to.equal(1_500_000);
    }
    expect(await readFile(stateFile, 'utf8')).to.equal(file);
    expect(logged).to.have.length(3);
    expect(logged[0]).to.match(
      /^block height 9007199254740991 from the gateway refused: above 15001\d\d, the most blocks possible since the last accepted height; keeping 1500000$/,
    );
    expect(logged[1]).to.equal(
      `block height 1499949 from the gateway refused: ${REORG_TOLERANCE_BLOCKS + 1} blocks below the last accepted 1500000; keeping 1500000`,
    );
    expect(logged[2]).to.match(/^block height 1510000 from the gateway refused: above 15001\d\d/);

    gateway.set({ answer: 'height', height: 1_500_002 });
    await heights.refresh();
    expect(heights.current()).to.equal(1_500_002);
    expect(await savedHeight()).to.deep.equal({ height: 1_500_002 });
    expect(logged[3]).to.equal('block height from the gateway accepted again: 1500002');
  });

  it('refuses an absurd height on a first start, with no height known yet', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 9_007_199_254_740_991 });
    const heights = source();
    await heights.start();

    expect(heights.current()).to.equal(undefined);
    expect(heights.health()).to.deep.include({ fresh: false, reachable: true });
    expect(heights.health().lastError).to.match(/^block height 9007199254740991 refused: above \d+/);
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('reads a state file of earlier versions ({"height":N}) and refuses a height far below it', async () => {
    await writeFile(stateFile, '{"height":1500000}\n');
    gateway = await startFakeGateway({ answer: 'height', height: 12 });
    const heights = source();
    await heights.start();

    // not signed with: the file does not say how old it is
    expect(heights.current()).to.equal(undefined);
    expect(heights.health().height).to.equal(1_500_000);
    gateway.set({ answer: 'height', height: 1_500_003 });
    await heights.refresh();
    expect(heights.current()).to.equal(1_500_003);
    expect(await savedHeight()).to.deep.equal({ height: 1_500_003 });
  });

  it('restores the time a saved height was read: a jump the time since allows is taken after a restart', async () => {
    // saved a day ago: some 2,880 blocks of 30 s may have come since
    await writeFile(stateFile, JSON.stringify({ height: 1_500_000, at: clock - 86_400_000 }));
    gateway = await startFakeGateway({ answer: 'height', height: 1_500_720 });
    const heights = source();
    await heights.start();
    expect(heights.current()).to.equal(1_500_720);

    await writeFile(stateFile, JSON.stringify({ height: 1_500_000, at: clock }));
    const restarted = source();
    await restarted.start();
    expect(restarted.current()).to.equal(1_500_000);
  });

  it('keeps a path prefix of the gateway URL', async () => {
    gateway = await startFakeGateway({ answer: 'height', height: 5 });
    const requested: string[] = [];
    const heights = source({
      gatewayUrl: 'http://gateway.invalid/arweave/',
      fetch: async (input) => {
        requested.push(String(input));
        return new Response(JSON.stringify({ height: 5 }), { status: 200 });
      },
    });
    await heights.start();

    expect(requested).to.deep.equal(['http://gateway.invalid/arweave/info']);
    expect(heights.current()).to.equal(5);
  });
});

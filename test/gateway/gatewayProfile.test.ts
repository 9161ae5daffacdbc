import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { ARLOCAL_MAX_JUMP_BLOCKS, createGatewayProfile, gatewayKindOf } from '../../src/adapters/gateway/gatewayProfile.js';
import { createHeightGuard } from '../../src/adapters/gateway/heightGuard.js';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { startGatewayInfo, type GatewayInfo } from '../support/gatewayInfo.js';
import { testServiceConfig, TEST_BLOCK_HEIGHT } from '../support/testService.js';
import { eventually } from '../support/eventually.js';
import { startFakeGateway } from './fakeGateway.js';

/** what arlocal 1.1.66 answers on `GET /info` (node_modules/arlocal/bin/app.js) */
const ARLOCAL_INFO = JSON.stringify({ network: 'arlocal.N.1', version: 1, release: 1, queue_length: 0, peers: 0, height: 0, current: 'x', blocks: 1 });
const GATEWAY = 'http://127.0.0.1:1984';

describe('the gateway profile: arlocal told from its /info', () => {
  function profileOf(settings: { maxJumpBlocks: number; chunkConcurrency: number }) {
    const warned: string[] = [];
    const heights = createHeightGuard({ maxJumpBlocks: settings.maxJumpBlocks, minBlockIntervalMs: 30_000, now: () => Date.UTC(2026, 0, 1), log: () => {} });
    const profile = createGatewayProfile({ ...settings, gatewayUrl: GATEWAY, heights, warn: (message) => warned.push(message) });
    const bundler = profile.bundlerSettings({ confirmations: 18, chunkConcurrency: settings.chunkConcurrency });
    return { warned, heights, profile, bundler };
  }

  it('tells arlocal by its network name, and every other gateway apart', () => {
    expect(gatewayKindOf(ARLOCAL_INFO)).to.deep.equal({ kind: 'arlocal', network: 'arlocal.N.1' });
    expect(gatewayKindOf(JSON.stringify({ network: 'arweave.N.1', height: 1 }))).to.deep.equal({ kind: 'other', network: 'arweave.N.1' });
    expect(gatewayKindOf(JSON.stringify({ network: 'test', height: 1 }))).to.deep.equal({ kind: 'other', network: 'test' });
    expect(gatewayKindOf(JSON.stringify({ height: 1 }))).to.deep.equal({ kind: 'other', network: undefined });
    expect(gatewayKindOf(JSON.stringify({ network: 7, height: 1 }))).to.deep.equal({ kind: 'other', network: undefined });
    expect(gatewayKindOf('not json')).to.deep.equal({ kind: 'other', network: undefined });
  });

  it('on arlocal, posts chunks one at a time and believes its jumps, saying so in one warning line however often it answers', () => {
    const { warned, heights, profile, bundler } = profileOf({ maxJumpBlocks: 100, chunkConcurrency: 32 });
    expect([profile.kind(), bundler.chunkConcurrency]).to.deep.equal([undefined, 32]);
    expect(heights.admit(0)).to.deep.equal({ accepted: true, height: 0 });
    expect(heights.admit(500).accepted, 'before arlocal answered: the jump rule as set').to.equal(false);
    for (let i = 0; i < 3; i++) profile.observeInfo(ARLOCAL_INFO);
    expect([profile.kind(), bundler.chunkConcurrency, bundler.confirmations]).to.deep.equal(['arlocal', 1, 18]);
    expect(heights.admit(500)).to.deep.equal({ accepted: true, height: 500 });
    expect(heights.admit(500 + ARLOCAL_MAX_JUMP_BLOCKS + 1).accepted, 'an absurd height is still refused').to.equal(false);
    expect(warned).to.deep.equal([
      `gateway ${GATEWAY} is arlocal (network "arlocal.N.1"): overriding ` +
        'BUNDLE_CHUNK_CONCURRENCY 32 -> 1 (arlocal stores chunks in the order they arrive, whatever their offsets); ' +
        'BLOCK_HEIGHT_MAX_JUMP 100 -> 1000000 (arlocal mines many blocks at once)',
    ]);
  });

  it('on arlocal, names only the settings it overrides, and keeps a higher BLOCK_HEIGHT_MAX_JUMP', () => {
    const fitting = profileOf({ maxJumpBlocks: 2_000_000, chunkConcurrency: 1 });
    fitting.profile.observeInfo(ARLOCAL_INFO);
    expect(fitting.warned).to.deep.equal([]);
    expect(fitting.heights.admit(1_500_000).accepted).to.equal(true);
    expect(fitting.bundler.chunkConcurrency).to.equal(1);

    const jumpOnly = profileOf({ maxJumpBlocks: 100, chunkConcurrency: 1 });
    jumpOnly.profile.observeInfo(ARLOCAL_INFO);
    expect(jumpOnly.warned).to.deep.equal([
      `gateway ${GATEWAY} is arlocal (network "arlocal.N.1"): overriding BLOCK_HEIGHT_MAX_JUMP 100 -> 1000000 (arlocal mines many blocks at once)`,
    ]);

    const chunksOnly = profileOf({ maxJumpBlocks: ARLOCAL_MAX_JUMP_BLOCKS, chunkConcurrency: 4 });
    chunksOnly.profile.observeInfo(ARLOCAL_INFO);
    expect(chunksOnly.warned).to.deep.equal([
      `gateway ${GATEWAY} is arlocal (network "arlocal.N.1"): overriding BUNDLE_CHUNK_CONCURRENCY 4 -> 1 (arlocal stores chunks in the order they arrive, whatever their offsets)`,
    ]);
  });

  it('on any other gateway, keeps the settings as set and logs nothing; the first answer decides', () => {
    for (const network of ['arweave.N.1', 'test', undefined]) {
      const { warned, heights, profile, bundler } = profileOf({ maxJumpBlocks: 100, chunkConcurrency: 32 });
      profile.observeInfo(JSON.stringify({ network, height: 0 }));
      profile.observeInfo(ARLOCAL_INFO);
      expect([profile.kind(), bundler.chunkConcurrency, warned], String(network)).to.deep.equal(['other', 32, []]);
      expect(heights.admit(0).accepted).to.equal(true);
      expect(heights.admit(500).accepted, String(network)).to.equal(false);
    }
  });

  it("is told by the bundler's gateway too: a height jump from a gateway answering as an Arweave node is refused", async () => {
    const gateway = await startFakeGateway({ answer: 'height', height: 1_000 });
    try {
      const { heights, profile, warned } = profileOf({ maxJumpBlocks: 100, chunkConcurrency: 32 });
      const client = createArweaveGateway({ gatewayUrl: gateway.url, heights, observeInfo: profile.observeInfo });
      expect(await client.currentHeight()).to.equal(1_000);
      expect(profile.kind()).to.equal('other');
      gateway.set({ answer: 'height', height: 1_500 });
      const refused = await client.currentHeight().then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(refused).to.match(/answered block height 1500, refused/);
      expect(warned).to.deep.equal([]);

      gateway.set({ answer: 'body', body: JSON.stringify({ network: 'arlocal.N.1', height: 1_000 }) });
      const local = profileOf({ maxJumpBlocks: 100, chunkConcurrency: 32 });
      const arlocalClient = createArweaveGateway({ gatewayUrl: gateway.url, heights: local.heights, observeInfo: local.profile.observeInfo });
      expect(await arlocalClient.currentHeight()).to.equal(1_000);
      expect([local.profile.kind(), local.bundler.chunkConcurrency]).to.deep.equal(['arlocal', 1]);
    } finally {
      await gateway.close();
    }
  });
});

describe('the service on a gateway it tells from its /info', function () {
  this.timeout(60_000);
  let dataDir: string;
  let gateway: GatewayInfo;
  let service: RunningService | undefined;
  const lines: string[] = [];
  const about = () => lines.filter((line) => line.includes('is arlocal'));
  const savedHeight = async () => (JSON.parse(await readFile(join(dataDir, 'block-height.json'), 'utf8')) as { height: number }).height;
  /** the service asked the gateway twice more: the first of those answers has been judged */
  const refreshed = async () => {
    const seen = gateway.requests();
    await eventually(() => gateway.requests() >= seen + 2, Boolean, 'two more block height refreshes');
  };

  async function start(network: string, { downAtStart = false } = {}) {
    lines.length = 0;
    dataDir = await mkdtemp(join(tmpdir(), 'upload-service-'));
    gateway = await startGatewayInfo(TEST_BLOCK_HEIGHT, network);
    if (downAtStart) await gateway.down();
    const config = testServiceConfig(dataDir, gateway.url, { BLOCK_HEIGHT_REFRESH_MS: '1000' });
    service = await startService(
      config,
      createLogger('warn', (line) => lines.push((JSON.parse(line) as { message: string }).message)),
    );
  }
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await gateway?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('on a gateway answering as arlocal, down at start-up: says nothing until it answers, then overrides once and believes its jumps', async () => {
    await start('arlocal.N.1', { downAtStart: true });
    expect(about()).to.deep.equal([]);
    await gateway.up();
    await eventually(() => about().length > 0, Boolean, 'the line saying the gateway is arlocal');
    gateway.setHeight(TEST_BLOCK_HEIGHT + 50_000);
    await eventually(async () => (await savedHeight().catch(() => 0)) === TEST_BLOCK_HEIGHT + 50_000, Boolean, 'a jump of 50,000 blocks believed');
    await refreshed();
    expect(about()).to.deep.equal([
      `gateway ${gateway.url} is arlocal (network "arlocal.N.1"): overriding ` +
        'BUNDLE_CHUNK_CONCURRENCY 32 -> 1 (arlocal stores chunks in the order they arrive, whatever their offsets); ' +
        'BLOCK_HEIGHT_MAX_JUMP 100 -> 1000000 (arlocal mines many blocks at once)',
    ]);
  });

  it('on the test gateway (network "test"): no override, nothing said, and a jump of 50,000 blocks refused', async () => {
    await start('test');
    await refreshed();
    gateway.setHeight(TEST_BLOCK_HEIGHT + 50_000);
    await refreshed();
    expect(await savedHeight()).to.equal(TEST_BLOCK_HEIGHT);
    expect(about()).to.deep.equal([]);
    expect(lines.filter((line) => line.includes('refused'))).to.have.length(1);
  });
});

import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { generateTransactionChunks } from 'arweave/node/lib/merkle.js';
import { startChunkGateway } from './chunkGateway.js';
import { BLOCKS_TO_PERMANENT, bundleState, expectOffsetsInBundle, plansOf, bundlerNodesBehind, statusesOf, uploadItems, type BundlerNode } from './harness.js';

/**
 * The bundler posting a bundle's chunks BUNDLE_CHUNK_CONCURRENCY at a time, to arlocal behind a
 * gateway that takes chunks in any order, checks each one's proof, and counts the posts in flight.
 */
describe('bundler posting chunks several at a time', function () {
  this.timeout(120_000);
  const CONCURRENCY = 4;
  const suite = bundlerNodesBehind(startChunkGateway);
  let node: BundlerNode | undefined;

  async function start(): Promise<BundlerNode> {
    // a chunk's answer may be held until the others arrive: the bundler's gateway waits 30 s, not 600 ms
    node = await suite.start({ timeoutMs: 30_000, env: { BUNDLE_CHUNK_CONCURRENCY: String(CONCURRENCY) } });
    await suite.arlocal.mint(node.service.walletAddress, '100000000000000000');
    return node;
  }

  /** seven items of 500,000 bytes (each free) make a bundle of 14 chunks */
  const SIZES = Array.from({ length: 7 }, () => 500_000);
  const CHUNKS = [...Array(14).keys()];

  /** the bundle mined, every item FINALIZED in it, its data as arlocal serves it chunked as `offsets` say */
  async function expectPermanent(items: readonly DataItem[], planId: string): Promise<void> {
    await suite.gateway.forwarded();
    await suite.arlocal.mine(BLOCKS_TO_PERMANENT);
    await node!.pass();
    const bundle = await bundleState(node!.service, planId);
    expect(bundle?.status, node!.logs.join('\n')).to.equal('permanent');
    for (const status of await statusesOf(node!.service, items))
      expect(status).to.deep.equal({ status: 'FINALIZED', info: 'permanent', bundleId: bundle!.txId });
    await expectOffsetsInBundle(node!.service, suite.arlocal, items, bundle!.txId!);
    // every chunk taken once, at the offset and under the data root arweave-js computes from the bundle's bytes
    const reference = await generateTransactionChunks(await suite.arlocal.data(bundle!.txId!));
    const expected = reference.chunks.map((c, index) => ({ index, offset: c.maxByteRange - 1, dataRoot: bundle!.dataRoot }));
    expect(Buffer.from(reference.data_root).toString('base64url')).to.equal(bundle!.dataRoot);
    expect([...suite.gateway.taken].sort((a, b) => a.offset - b.offset)).to.deep.equal(expected);
  }

  it(`has ${CONCURRENCY} chunk posts in flight at once, never more, and the gateway takes each chunk once, in whatever order, with a valid proof`, async () => {
    const { service } = await start();
    const items = await uploadItems(service, SIZES);
    suite.gateway.holdUntil(CONCURRENCY);
    await node!.pass();
    const [planId] = await plansOf(service, items[0]!.id);
    expect((await bundleState(service, planId!))?.status, node!.logs.join('\n')).to.equal('seeded');
    expect(suite.gateway.mostInFlight()).to.equal(CONCURRENCY);
    expect(suite.gateway.posts.map((p) => p.status)).to.deep.equal(CHUNKS.map(() => 200));
    // 14 chunks: three rounds of four, then the last two together
    expect(suite.gateway.posts.map((p) => p.inFlight)).to.deep.equal([...CHUNKS.slice(0, 12).map(() => CONCURRENCY), 2, 2]);
    await expectPermanent(items, planId!);
  });

  it('after a chunk fails with others in flight, the next pass posts exactly the chunks not taken, and the bundle becomes permanent', async () => {
    const { service } = await start();
    const items = await uploadItems(service, SIZES);
    suite.gateway.holdUntil(CONCURRENCY);
    suite.gateway.failOnce(5);
    await node!.pass();
    const [planId] = await plansOf(service, items[0]!.id);
    expect((await bundleState(service, planId!))?.status).to.equal('posted');
    // chunk 5 failed while three others were in flight beside it
    expect(suite.gateway.posts.find((p) => p.status === 500)).to.deep.equal({ index: 5, status: 500, inFlight: CONCURRENCY });
    const takenFirst = suite.gateway.taken.map((t) => t.index);
    expect(takenFirst).to.include.members([0, 1, 2, 3]);
    expect(takenFirst).to.not.include(5);
    const firstPosts = suite.gateway.posts.length;

    await node!.pass();
    expect((await bundleState(service, planId!))?.status, node!.logs.join('\n')).to.equal('seeded');
    const resent = suite.gateway.posts.slice(firstPosts).map((p) => p.index);
    expect(resent.sort((a, b) => a - b)).to.deep.equal(CHUNKS.filter((i) => !takenFirst.includes(i)));
    await expectPermanent(items, planId!);
  });
});

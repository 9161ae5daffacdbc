import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataItem } from 'arbundles';
import { validatePath } from 'arweave/node/lib/merkle.js';
import { withArlocalService } from '../support/arlocalService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { runScript } from '../support/runScript.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { resolvePointer, validate, type Schema } from '../openapi/jsonSchema.js';
import { TxProofBody } from '../../src/http/openapi/routes/proof.js';

interface Proof {
  id: string;
  rootTransactionId: string;
  dataRoot: string;
  dataSize: number;
  itemOffset: number;
  itemSize: number;
  chunks: { offset: number; dataPath: string }[];
  block: { height: number; indepHash: string } | null;
}

const b64 = (text: string) => Buffer.from(text, 'base64url');

/**
 * A gateway that serves arlocal's answers, but `GET /<id>` (a transaction's data) with one bit of
 * byte `at` flipped: a gateway whose bytes are not the ones the proof's paths commit to.
 */
async function flippingGateway(upstream: string, id: string, at: number): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const answer = await fetch(`${upstream}${req.url}`);
    const body = Buffer.from(await answer.arrayBuffer());
    if (req.url === `/${id}`) body[at]! ^= 0x01;
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** a path with one byte changed: in its leaf's hash, so it still parses as a path */
function tampered(dataPath: string): string {
  const path = b64(dataPath);
  path[path.length - 40]! ^= 0x01;
  return path.toString('base64url');
}

/**
 * End to end with arlocal as the gateway: the proofs of an item of several chunks, a tiny one and an
 * item nested two levels down are checked with arweave-js's own `validatePath` against the data root
 * arlocal holds, and each chunk's bytes as arlocal serves the bundle hash to the path's leaf; the
 * block is null until the bundle is mined, then arlocal's. `npm run verify-proof` agrees.
 */
describe('proof of permanence on an Arweave gateway (arlocal)', function () {
  this.timeout(180_000);
  // the 600 KiB item is free, so nothing here is about payment
  const env = withArlocalService({ FREE_UPLOAD_LIMIT_BYTES: String(1024 * 1024) });
  const large = signedItem(signers.arweave(), randomBytes(600 * 1024));
  const tiny = signedItem(signers.ethereum(), 'tiny');
  const nested = twoLevels();
  const early: Record<string, Response> = {};
  const pending: Record<string, Proof> = {};
  const mined: Record<string, Proof> = {};
  let bundle: Buffer;

  const proofOf = (id: string) => fetch(`${env.service.url}/tx/${id}/proof`);
  const idsOf = async () => [(await large).id, (await tiny).id, (await nested).inner1.id];

  // one chain, mined once, for every case
  before(async () => {
    for (const item of [await large, await tiny, (await nested).root]) {
      expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    }
    await nestedIndexed(env.service, (await nested).root.id);
    for (const id of await idsOf()) early[id] = await proofOf(id);
    await env.service.bundler.runOnce();
    for (const id of await idsOf()) pending[id] = await (await proofOf(id)).json();
    await env.arlocal.mine(20);
    await env.service.bundler.runOnce();
    for (const id of await idsOf()) mined[id] = await (await proofOf(id)).json();
    bundle = await env.arlocal.data(mined[(await large).id]!.rootTransactionId);
  });

  it("answers 404 TX doesn't exist until the root transaction is known, block null until mined, then the gateway's block", async () => {
    const rootTransactionId = mined[(await large).id]!.rootTransactionId;
    const status = await (await fetch(`${env.arlocal.url}/tx/${rootTransactionId}/status`)).json();
    expect(status.block_indep_hash).to.match(/^[A-Za-z0-9_-]{64}$/);
    for (const id of await idsOf()) {
      expect(early[id]!.status, id).to.equal(404);
      expect(await early[id]!.text()).to.equal("TX doesn't exist");
      expect(pending[id]!.block, id).to.equal(null);
      expect(mined[id]!.block, id).to.deep.equal({ height: status.block_height, indepHash: status.block_indep_hash });
      // only the block changes once mined
      expect({ ...mined[id]!, block: null }).to.deep.equal(pending[id]);
    }
  });

  it("gives each item's chunk paths, accepted by arweave-js validatePath, over the bytes the gateway serves", async () => {
    const header = await (await fetch(`${env.arlocal.url}/tx/${mined[(await large).id]!.rootTransactionId}`)).json();
    const nestedOffsets = await (await fetch(`${env.service.url}/tx/${(await nested).inner1.id}/offsets`)).json();
    const expected = [
      { item: await large, chunks: 3 },
      { item: await tiny, chunks: 1 },
      { item: (await nested).inner1, chunks: 1, offset: nestedOffsets.startOffsetInRootBundle },
    ];
    for (const { item, chunks, offset } of expected) {
      const proof = mined[item.id]!;
      expect(proof).to.include({ id: item.id, dataRoot: header.data_root, dataSize: Number(header.data_size), itemSize: item.getRaw().byteLength });
      if (offset !== undefined) expect(proof.itemOffset).to.equal(offset);
      expect(proof.chunks, item.id).to.have.length(chunks);
      let covered = proof.itemOffset;
      for (const chunk of proof.chunks) {
        const result = await validatePath(b64(proof.dataRoot), chunk.offset, 0, proof.dataSize, b64(chunk.dataPath));
        if (result === false) throw new Error(`a path of ${item.id} does not validate`);
        expect(result.leftBound).to.be.at.most(covered);
        expect(result.rightBound).to.be.above(covered);
        covered = result.rightBound;
        const leaf = b64(chunk.dataPath).subarray(-64, -32);
        expect(createHash('sha256').update(bundle.subarray(result.leftBound, result.rightBound)).digest()).to.deep.equal(leaf);
      }
      expect(covered).to.be.at.least(proof.itemOffset + proof.itemSize);
      expect(new DataItem(bundle.subarray(proof.itemOffset, proof.itemOffset + proof.itemSize)).id).to.equal(item.id);
    }
  });

  it('answers as the OpenAPI document says, before and after mining', async () => {
    const doc = await (await fetch(`${env.service.url}/v1/openapi.json`)).json();
    const response = doc.paths['/v1/tx/{id}/proof'].get.responses['200'];
    const schema = (response.$ref ? resolvePointer(doc, response.$ref) : response).content['application/json'].schema as Schema;
    for (const proof of [...Object.values(pending), ...Object.values(mined)]) {
      expect(validate(proof, schema, doc), proof.id).to.deep.equal([]);
      expect(TxProofBody.safeParse(proof).success).to.equal(true);
    }
    expect(doc.paths['/tx/{id}/proof'].get.responses['404']).to.not.equal(undefined);
  });

  it('a path with one byte changed fails validation', async () => {
    const proof = mined[(await large).id]!;
    for (const chunk of proof.chunks) {
      expect(await validatePath(b64(proof.dataRoot), chunk.offset, 0, proof.dataSize, b64(tampered(chunk.dataPath)))).to.equal(false);
    }
  });

  it('npm run verify-proof exits 0 on a real proof and 1 naming the check a tampered one fails', async () => {
    const gateway = ['--gateway', env.arlocal.url];
    for (const id of await idsOf()) {
      const run = await runScript('verifyProof', [id, '--service', env.service.url, ...gateway], {});
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.contain(`proof of item ${id} holds:`);
    }
    const dir = await mkdtemp(join(tmpdir(), 'proof-'));
    try {
      const proof = mined[(await large).id]!;
      const cases: [string, Proof, string][] = [
        ['path', { ...proof, chunks: proof.chunks.map((c, i) => (i === 1 ? { ...c, dataPath: tampered(c.dataPath) } : c)) }, "paths: chunk 1's path"],
        // another item's proof under this id: every path holds, the bytes are the other item's
        ['id', { ...mined[(await tiny).id]!, id: proof.id }, 'bytes: '],
        ['block', { ...proof, block: { ...proof.block!, height: proof.block!.height - 1 } }, 'block: '],
        // the paths still lead to the root over a larger size: the gateway's header tells
        ['size', { ...proof, dataSize: proof.dataSize + 1 }, "transaction: the gateway's data_size"],
      ];
      for (const [name, bad, failure] of cases) {
        const file = join(dir, `${name}.json`);
        await writeFile(file, JSON.stringify(bad));
        const run = await runScript('verifyProof', ['--proof', file, ...gateway], {});
        expect(run.code, `${name}: ${run.stdout}`).to.equal(1);
        expect(run.stderr, name).to.contain(failure);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("npm run verify-proof exits 1 when the gateway's bytes are not the ones the paths commit to", async () => {
    const proof = mined[(await large).id]!;
    // a byte of the item's second chunk, past its signature
    const { url, server } = await flippingGateway(env.arlocal.url, proof.rootTransactionId, 300 * 1024);
    try {
      const run = await runScript('verifyProof', [proof.id, '--service', env.service.url, '--gateway', url], {});
      expect(run.code, run.stdout).to.equal(1);
      expect(run.stderr).to.contain("bytes: the gateway's bytes [262144, 524288) do not hash to chunk 1's leaf");
    } finally {
      server.close();
    }
  });
});

import { createHash } from 'node:crypto';
import { SIG_CONFIG, type SignatureConfig } from 'arbundles';
import { validatePath } from 'arweave/node/lib/merkle.js';
import { z } from 'zod';

/**
 * Checks a proof of `GET /tx/:id/proof` (CONTRACT.md section 10) against an Arweave gateway, trusting
 * nothing the service says: every claim is either checked by arweave-js's own Merkle function or
 * compared with what the gateway serves. The checks, in order, each a `ProofCheckFailed` naming it:
 *   paths        each chunk's data_path leads to dataRoot (arweave-js validatePath), the chunks are
 *                consecutive and cover the item's byte range
 *   transaction  the gateway's header of the root transaction has that data_root and data_size, and
 *                its id is the sha256 of its signature
 *   block        the gateway puts the transaction in that block (`/tx/{id}/status`), and that block
 *                exists and lists it (`/block/hash/{indep_hash}`; a gateway whose blocks list no ids,
 *                as arlocal's, is said so in the summary); a proof without a block fails
 *   bytes        the gateway's bytes of each chunk hash to the path's leaf, and the item in them
 *                starts with a signature whose sha256 is the item's id
 */

const B64 = z.string().regex(/^[A-Za-z0-9_-]*$/);
const Count = z.number().int().nonnegative();
export const Proof = z.object({
  id: B64.length(43),
  rootTransactionId: B64.length(43),
  dataRoot: B64,
  dataSize: Count,
  itemOffset: Count,
  itemSize: z.number().int().positive(),
  block: z.object({ height: Count, indepHash: B64 }).nullable(),
  chunks: z.array(z.object({ offset: Count, dataPath: B64 })).min(1),
});
export type Proof = z.infer<typeof Proof>;

export class ProofCheckFailed extends Error {
  override readonly name = 'ProofCheckFailed';
  constructor(
    readonly check: 'shape' | 'paths' | 'transaction' | 'block' | 'bytes',
    message: string,
  ) {
    super(`${check}: ${message}`);
  }
}

export interface Gateway {
  /** origin, no trailing slash */
  url: string;
  /** each request to the gateway is abandoned after this */
  timeoutMs: number;
}

interface ChunkRange {
  left: number;
  right: number;
  /** the chunk's sha256, the leaf of its path */
  dataHash: Buffer;
}

const b64 = (text: string) => Buffer.from(text, 'base64url');

/** The chunks' ranges, each path checked by arweave-js against the data root. */
export async function checkPaths(proof: Proof): Promise<ChunkRange[]> {
  const root = b64(proof.dataRoot);
  const ranges: ChunkRange[] = [];
  for (const [i, { offset, dataPath }] of proof.chunks.entries()) {
    const path = b64(dataPath);
    const result = await validatePath(root, offset, 0, proof.dataSize, path);
    if (result === false) throw new ProofCheckFailed('paths', `chunk ${i}'s path (offset ${offset}) does not lead to data root ${proof.dataRoot}`);
    const { leftBound: left, rightBound: right } = result;
    if (offset < left || offset >= right) throw new ProofCheckFailed('paths', `chunk ${i}'s offset ${offset} is outside its range [${left}, ${right})`);
    const previous = ranges.at(-1);
    if (previous && previous.right !== left)
      throw new ProofCheckFailed('paths', `chunk ${i} starts at ${left}, not where chunk ${i - 1} ends (${previous.right})`);
    // the leaf: the chunk's hash, then its end offset (arweave-js generateProofs)
    ranges.push({ left, right, dataHash: path.subarray(path.length - 64, path.length - 32) });
  }
  const first = ranges[0]!;
  const last = ranges.at(-1)!;
  const end = proof.itemOffset + proof.itemSize;
  if (first.left > proof.itemOffset || last.right < end || end > proof.dataSize) {
    throw new ProofCheckFailed('paths', `chunks cover [${first.left}, ${last.right}), not the item's bytes [${proof.itemOffset}, ${end})`);
  }
  return ranges;
}

async function getJson(gateway: Gateway, path: string, check: ProofCheckFailed['check']): Promise<Record<string, unknown>> {
  const res = await fetch(`${gateway.url}${path}`, { signal: AbortSignal.timeout(gateway.timeoutMs) });
  if (res.status !== 200) throw new ProofCheckFailed(check, `the gateway answers ${res.status} to GET ${path}`);
  const body = (await res.json()) as unknown;
  if (typeof body !== 'object' || body === null) throw new ProofCheckFailed(check, `the gateway's answer to GET ${path} is not an object`);
  return body as Record<string, unknown>;
}

/** The gateway's header of the root transaction carries the proof's data root and size. */
export async function checkTransaction(proof: Proof, gateway: Gateway): Promise<void> {
  const tx = await getJson(gateway, `/tx/${proof.rootTransactionId}`, 'transaction');
  if (tx['data_root'] !== proof.dataRoot)
    throw new ProofCheckFailed('transaction', `the gateway's data_root is ${String(tx['data_root'])}, the proof's ${proof.dataRoot}`);
  if (String(tx['data_size']) !== String(proof.dataSize)) {
    throw new ProofCheckFailed('transaction', `the gateway's data_size is ${String(tx['data_size'])}, the proof's ${proof.dataSize}`);
  }
  const id = createHash('sha256')
    .update(b64(String(tx['signature'])))
    .digest('base64url');
  if (id !== proof.rootTransactionId) throw new ProofCheckFailed('transaction', `the gateway's header is of transaction ${id}`);
}

/** The gateway has the transaction in the proof's block, and that block at that height. */
export async function checkBlock(proof: Proof, gateway: Gateway): Promise<string> {
  if (!proof.block) throw new ProofCheckFailed('block', 'the proof names no block: the transaction is not mined yet');
  const { height, indepHash } = proof.block;
  const status = await getJson(gateway, `/tx/${proof.rootTransactionId}/status`, 'block');
  if (status['block_indep_hash'] !== indepHash || status['block_height'] !== height) {
    throw new ProofCheckFailed(
      'block',
      `the gateway has it in block ${String(status['block_height'])} ${String(status['block_indep_hash'])}, the proof says ${height} ${indepHash}`,
    );
  }
  // by its hash, not its height: arlocal answers a transaction's status with the height it was posted at
  const block = await getJson(gateway, `/block/hash/${indepHash}`, 'block');
  if (block['indep_hash'] !== indepHash) throw new ProofCheckFailed('block', `the gateway has no block ${indepHash}`);
  const txs = block['txs'];
  // arlocal 1.1.66 lists a block's transactions as "[object Object]": its status is all there is to go by
  const listsIds = Array.isArray(txs) && txs.length > 0 && txs.every((tx) => typeof tx === 'string' && /^[A-Za-z0-9_-]{43}$/.test(tx));
  if (!listsIds) return 'the block lists no transaction ids: taken from the transaction status';
  if (!txs.includes(proof.rootTransactionId))
    throw new ProofCheckFailed('block', `the gateway's block ${indepHash} does not list transaction ${proof.rootTransactionId}`);
  return 'which lists it';
}

/** the signature's length by the item's first two bytes (ANS-104 signature type, little-endian) */
function signatureLength(head: Buffer): number {
  const meta = SIG_CONFIG[head.readUInt16LE(0) as SignatureConfig] as { sigLength: number } | undefined;
  if (!meta) throw new ProofCheckFailed('bytes', `the item's bytes start with unknown signature type ${head.readUInt16LE(0)}`);
  return meta.sigLength;
}

/** the most of an item's head its id needs: 2 bytes of type and the longest signature */
const HEAD = 2 + Math.max(...Object.values(SIG_CONFIG).map((c) => c.sigLength));

/**
 * The chunks' bytes as the gateway serves the root transaction's data (`GET /{id}`, asked for the
 * chunks' range; a gateway that ignores the range sends it all, and only the range is read), each
 * hashed as it streams by: one read buffer in memory, whatever the item's size.
 */
export async function checkBytes(proof: Proof, ranges: readonly ChunkRange[], gateway: Gateway): Promise<void> {
  const start = ranges[0]!.left;
  const end = ranges.at(-1)!.right;
  const res = await fetch(`${gateway.url}/${proof.rootTransactionId}`, {
    headers: { range: `bytes=${start}-${end - 1}` },
    signal: AbortSignal.timeout(gateway.timeoutMs),
  });
  if ((res.status !== 200 && res.status !== 206) || !res.body)
    throw new ProofCheckFailed('bytes', `the gateway answers ${res.status} to GET /${proof.rootTransactionId}`);
  let position = res.status === 206 ? Number(/^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '')?.[1] ?? NaN) : 0;
  if (position !== start && res.status === 206) throw new ProofCheckFailed('bytes', `the gateway sent a range from ${position}, not ${start}`);
  let index = 0;
  let hash = createHash('sha256');
  const head: Buffer[] = [];
  let headBytes = 0;
  for await (const piece of res.body as AsyncIterable<Uint8Array>) {
    for (let at = 0; at < piece.byteLength && index < ranges.length;) {
      const range = ranges[index]!;
      const from = Math.max(position, range.left);
      const take = Math.min(piece.byteLength - at, range.right - position);
      if (position + take > from) {
        const part = piece.subarray(at + (from - position), at + take);
        hash.update(part);
        keepHead(part, from);
      }
      at += take;
      position += take;
      if (position === range.right) {
        if (!hash.digest().equals(range.dataHash))
          throw new ProofCheckFailed('bytes', `the gateway's bytes [${range.left}, ${range.right}) do not hash to chunk ${index}'s leaf`);
        hash = createHash('sha256');
        index += 1;
      }
    }
    if (index === ranges.length) break;
  }
  if (index !== ranges.length) throw new ProofCheckFailed('bytes', `the gateway's data ended at byte ${position}, before ${end}`);

  function keepHead(part: Uint8Array, from: number) {
    const wanted = Math.min(HEAD, proof.itemSize) - headBytes;
    const skip = Math.max(0, proof.itemOffset + headBytes - from);
    if (wanted <= 0 || skip >= part.byteLength) return;
    const kept = part.subarray(skip, skip + wanted);
    head.push(Buffer.from(kept));
    headBytes += kept.byteLength;
  }
  const item = Buffer.concat(head);
  const id = createHash('sha256')
    .update(item.subarray(2, 2 + signatureLength(item)))
    .digest('base64url');
  if (id !== proof.id) throw new ProofCheckFailed('bytes', `the item's bytes at ${proof.itemOffset} are those of item ${id}, not ${proof.id}`);
}

/** Every check, in order; resolves with the summary's lines. */
export async function checkProof(raw: unknown, gateway: Gateway): Promise<string[]> {
  const parsed = Proof.safeParse(raw);
  if (!parsed.success) throw new ProofCheckFailed('shape', `not a proof: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const proof = parsed.data;
  const ranges = await checkPaths(proof);
  await checkTransaction(proof, gateway);
  const listed = await checkBlock(proof, gateway);
  await checkBytes(proof, ranges, gateway);
  const { height, indepHash } = proof.block!;
  return [
    `proof of item ${proof.id} holds:`,
    `  paths: ${ranges.length} chunk${ranges.length === 1 ? '' : 's'} [${ranges[0]!.left}, ${ranges.at(-1)!.right}) lead to data root ${proof.dataRoot} (arweave-js validatePath)`,
    `  transaction: ${proof.rootTransactionId} has that data_root and data_size ${proof.dataSize} at ${gateway.url}`,
    `  block: mined in block ${height} ${indepHash}, ${listed}`,
    `  bytes: the gateway's chunks hash to their leaves; bytes [${proof.itemOffset}, ${proof.itemOffset + proof.itemSize}) start with the signature of ${proof.id}`,
  ];
}

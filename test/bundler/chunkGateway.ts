import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { validatePath } from 'arweave/node/lib/merkle.js';

/**
 * A gateway for the chunk-posting tests (test code only): an HTTP proxy on 127.0.0.1 in front of
 * arlocal that takes `POST /chunk` in any order, as an Arweave node does, and hands the chunks to
 * arlocal in offset order (arlocal places each chunk after the last one it got, whatever its
 * offset). Every other request passes through (`GET /info` naming an Arweave node's network).
 *
 * Each chunk is checked as a node checks it before it is taken: its proof against its data root,
 * data size and offset (arweave-js `validatePath`), and its bytes against the proof's leaf hash;
 * a chunk failing that is refused 400 `{"error":"invalid_proof"}`. It counts the chunk posts in
 * flight (from the request's arrival to its answer) and keeps the most seen at once.
 *
 * `holdUntil(n)`: each chunk's answer waits until n chunk posts are in flight at once, or every
 * chunk of the transaction not yet answered is (the last ones), then 200 ms more (any further post
 * arrives meanwhile), then they are answered together; so a poster of concurrency n is seen with
 * exactly n in flight, and one of more with more. A poster
 * of less would wait for ever: after `holdLimitMs` the held posts are answered anyway.
 * `failOnce(index)`: that chunk's next post is answered 500; once it has been, nothing is held.
 */
export interface TakenChunk {
  index: number;
  offset: number;
  dataRoot: string;
}

export interface ChunkGateway {
  readonly url: string;
  /** every chunk post, in the order answered: its status and the chunk posts in flight when its answer was let go */
  readonly posts: readonly { index: number; status: number; inFlight: number }[];
  /** the chunks taken, in the order they were answered 200 */
  readonly taken: readonly TakenChunk[];
  /** the most chunk posts in flight at once */
  mostInFlight(): number;
  holdUntil(inFlight: number | undefined): void;
  failOnce(index: number): void;
  /** resolves once every chunk taken so far has reached arlocal */
  forwarded(): Promise<void>;
  close(): Promise<void>;
}

const CHUNK = 256 * 1024;
/** how long held posts still wait once there are enough of them: any further post arrives meanwhile */
const OVERSHOOT_WINDOW_MS = 200;

/**
 * arlocal's `GET /info` with the network name of an Arweave node: this gateway takes chunks in any
 * order, so the service must not take it for arlocal (src/adapters/gateway/gatewayProfile.ts)
 */
function asNode(info: Buffer): Buffer {
  return Buffer.from(JSON.stringify({ ...(JSON.parse(info.toString('utf8')) as object), network: 'arweave.N.1' }));
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export async function startChunkGateway(target: string, { holdLimitMs = 5_000 } = {}): Promise<ChunkGateway> {
  const posts: { index: number; status: number; inFlight: number }[] = [];
  const taken: TakenChunk[] = [];
  const sockets = new Set<Socket>();
  const failing = new Set<number>();
  let failed = false;
  let hold: number | undefined;
  let inFlight = 0;
  let most = 0;
  /** per data root: chunks taken and not yet handed to arlocal, by their first byte */
  const waiting = new Map<string, { next: number; chunks: Map<number, Buffer> }>();
  let forwarding: Promise<void> = Promise.resolve();
  let held: ((inFlight: number) => void)[] = [];
  /** per data root: chunks answered (any status) */
  const answeredOf = new Map<string, Set<number>>();

  const pass = async (req: IncomingMessage, body: Buffer) => {
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {},
      ...(req.method === 'POST' ? { body: new Uint8Array(body) } : {}),
    });
    return { status: answer.status, type: answer.headers.get('content-type'), bytes: Buffer.from(await answer.arrayBuffer()) };
  };

  /** hands arlocal the chunks that now follow on from what it has, one after another */
  const forwardInOrder = (root: string) => {
    forwarding = forwarding.then(async () => {
      const state = waiting.get(root)!;
      for (let body = state.chunks.get(state.next); body; body = state.chunks.get(state.next)) {
        const chunk = JSON.parse(body.toString('utf8')) as { chunk: string };
        state.chunks.delete(state.next);
        state.next += Buffer.from(chunk.chunk, 'base64url').byteLength;
        const answer = await fetch(`${target}/chunk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) });
        await answer.arrayBuffer();
        if (answer.status !== 200) throw new Error(`arlocal answered ${answer.status} to a chunk`);
      }
    });
  };

  /** the chunk posts in flight when this one's answer is let go */
  async function waitForCompany(root: string, chunkCount: number): Promise<number> {
    if (hold === undefined || failed) return inFlight;
    const answered = answeredOf.get(root)?.size ?? 0;
    return new Promise<number>((resolve) => {
      const timer = setTimeout(releaseAll, holdLimitMs);
      held.push((together) => {
        clearTimeout(timer);
        resolve(together);
      });
      // a moment more, so a poster of more than `hold` is seen with more in flight
      if (held.length === Math.min(hold!, chunkCount - answered)) setTimeout(releaseAll, OVERSHOOT_WINDOW_MS);
    });
  }

  function releaseAll() {
    const releasing = held;
    held = [];
    for (const release of releasing) release(inFlight);
  }

  async function takeChunk(body: Buffer): Promise<{ status: number; text: string }> {
    let json: { data_root: string; data_size: string; data_path: string; offset: string; chunk: string };
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return { status: 400, text: '{"error":"invalid_json"}' };
    }
    const offset = Number(json.offset);
    const size = Number(json.data_size);
    const index = Math.floor(offset / CHUNK);
    const chunkCount = Math.ceil(size / CHUNK);
    const together = await waitForCompany(json.data_root, chunkCount);
    const record = (status: number) => {
      posts.push({ index, status, inFlight: together });
      if (!answeredOf.has(json.data_root)) answeredOf.set(json.data_root, new Set());
      if (status === 200) answeredOf.get(json.data_root)!.add(index);
    };
    if (failing.delete(index)) {
      failed = true;
      releaseAll();
      record(500);
      return { status: 500, text: 'Internal Server Error' };
    }
    const bytes = Buffer.from(json.chunk, 'base64url');
    const proof = await validatePath(Buffer.from(json.data_root, 'base64url'), offset, 0, size, Buffer.from(json.data_path, 'base64url'));
    const leafHash = Buffer.from(json.data_path, 'base64url').subarray(-64, -32);
    if (!proof || proof.chunkSize !== bytes.byteLength || proof.rightBound - 1 !== offset || !createHash('sha256').update(bytes).digest().equals(leafHash)) {
      record(400);
      return { status: 400, text: '{"error":"invalid_proof"}' };
    }
    record(200);
    taken.push({ index, offset, dataRoot: json.data_root });
    if (!waiting.has(json.data_root)) waiting.set(json.data_root, { next: 0, chunks: new Map() });
    const state = waiting.get(json.data_root)!;
    const start = offset + 1 - bytes.byteLength;
    if (start >= state.next && !state.chunks.has(start)) {
      state.chunks.set(start, body);
      forwardInOrder(json.data_root);
    }
    return { status: 200, text: '{}' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'POST' && req.url === '/chunk') {
      // in flight from the request's arrival, its body still coming, to its answer
      inFlight++;
      most = Math.max(most, inFlight);
      try {
        const { status, text } = await takeChunk(await bodyOf(req));
        res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      } finally {
        inFlight--;
      }
      return;
    }
    const body = await bodyOf(req);
    const answer = await pass(req, body);
    const bytes = req.url === '/info' && answer.status === 200 ? asNode(answer.bytes) : answer.bytes;
    res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {}).end(bytes);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    taken,
    mostInFlight: () => most,
    holdUntil(n) {
      hold = n;
    },
    failOnce(index) {
      failing.add(index);
    },
    forwarded: () => forwarding,
    async close() {
      releaseAll();
      const closed = once(server, 'close');
      server.close();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

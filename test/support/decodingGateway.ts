import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A gateway double in front of arlocal that looks transactions up by the bytes their id decodes to,
 * as an Arweave node does: ArweaveTeam/arweave, apps/arweave/src/ar_http_iface_middleware.erl,
 * `handle(<<"GET">>, [<<"tx">>, Hash], ...)` (and `[<<"tx">>, Hash, <<"status">>]`) decodes the
 * path's id with `ar_util:safe_decode(Hash)` and reads the stored transaction by the decoded binary,
 * answering its header with the id it was stored under. Base64url decoding ignores the spare low
 * bits of an id's last character, so all 4 spellings of one id name the same transaction there.
 * arlocal looks ids up as strings: only the canonical spelling finds anything. Here every
 * `/tx/<id>...` path is passed on with its id decoded and encoded again; anything else as it came.
 */
export interface DecodingGateway {
  readonly url: string;
  close(): Promise<void>;
}

const TX_PATH = /^\/tx\/([A-Za-z0-9_-]{43})(\/.*)?$/;

export async function startDecodingGateway(arlocalUrl: string): Promise<DecodingGateway> {
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const match = TX_PATH.exec(req.url ?? '/');
      const path = match ? `/tx/${Buffer.from(match[1]!, 'base64url').toString('base64url')}${match[2] ?? ''}` : (req.url ?? '/');
      const body = Buffer.concat(parts);
      const headers = { ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}) };
      fetch(new URL(path, arlocalUrl), { method: req.method ?? 'GET', headers, ...(body.length > 0 ? { body } : {}) }).then(
        async (answer) => {
          const bytes = Buffer.from(await answer.arrayBuffer());
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
          res.end(bytes);
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

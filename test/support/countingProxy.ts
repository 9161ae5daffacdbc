import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a real endpoint (a JSON-RPC node, a gateway) that counts what passes:
 * for tests that assert how many requests the service made to a provider the operator pays for.
 * Each request is forwarded as it came (method, path, body) and its answer returned as it came.
 */
export interface CountingProxy {
  readonly url: string;
  /** every request that passed, in order: method and path, and the JSON-RPC method when the body names one */
  readonly requests: readonly { method: string; path: string; rpcMethod?: string }[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** the path a request is passed on under (default: as it came) */
  rewritePath?: (path: string) => string;
}

export async function startCountingProxy(target: string, { rewritePath = (path) => path }: ProxyOptions = {}): Promise<CountingProxy> {
  const requests: { method: string; path: string; rpcMethod?: string }[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const rpcMethod = rpcMethodOf(body);
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', ...(rpcMethod !== undefined ? { rpcMethod } : {}) });
      const headers = { ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}) };
      fetch(new URL(rewritePath(req.url ?? '/'), target), { method: req.method ?? 'GET', headers, ...(body.length > 0 ? { body } : {}) }).then(
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
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function rpcMethodOf(body: Buffer): string | undefined {
  try {
    const method = (JSON.parse(body.toString('utf8')) as { method?: unknown }).method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

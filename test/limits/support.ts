import { readdir } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { once } from 'node:events';

/** Another loopback address: a second client, as far as the service's per-client limits go. */
export const OTHER_CLIENT = '127.0.0.2';

export interface Answer {
  status: number;
  statusText: string;
  contentType: string | undefined;
  body: string;
  /** present only when the answer has one (every 429 and 503 does) */
  retryAfter?: string;
}

/** A POST from a chosen local address (fetch cannot choose one); the body sent whole. */
export async function post(
  url: string,
  path: string,
  body: Uint8Array,
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const target = new URL(path, url);
  const req = request(target, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length), ...options.headers },
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    agent: false,
  });
  req.end(body);
  return answerOf(req);
}

/** A GET from a chosen local address, on a connection of its own. */
export async function get(url: string, path: string, options: { localAddress?: string } = {}): Promise<Answer> {
  const req = request(new URL(path, url), { method: 'GET', ...(options.localAddress ? { localAddress: options.localAddress } : {}), agent: false });
  req.end();
  return answerOf(req);
}

/** Sends only the headers of a POST and waits for the answer (an upload refused before its body). */
export async function postHeadersOnly(url: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const req = request(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...headers }, agent: false });
  req.flushHeaders();
  const answer = await answerOf(req);
  req.destroy();
  return answer;
}

async function answerOf(req: ReturnType<typeof request>): Promise<Answer> {
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk;
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.statusCode!,
    statusText: res.statusMessage!,
    contentType: res.headers['content-type'],
    body,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

/** A raw connection and everything the server sends on it until it closes. */
export interface RawConnection {
  socket: Socket;
  /** resolves with all bytes received once the server closed the connection (or it was reset) */
  closed: Promise<string>;
  received(): string;
}

export async function rawConnection(url: string, localAddress?: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
  let data = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (data += chunk));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(data)));
  await once(socket, 'connect');
  return { socket, closed, received: () => data };
}

/** Sends `bytes` one at a time every `everyMs` until the connection closes. */
export function trickle(socket: Socket, bytes: Uint8Array, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded || i >= bytes.length) {
      clearInterval(timer);
      return;
    }
    socket.write(bytes.subarray(i, i + 1));
    i++;
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

/** The request line and headers of an upload, as bytes on the wire. */
export const uploadHead = (path: string, headers: Record<string, string>): string =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

/**
 * The upload bytes the service's handlers have taken so far, by kind (`upload_bytes_received_total`
 * of /metrics, counted as the body streams through): an upload whose first bytes are counted is in
 * its handler, being received. (Its bytes are in memory until they make a file: a small item never does.)
 */
export async function uploadBytesTaken(url: string): Promise<{ single: number; chunk: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const of = (kind: string) => Number(new RegExp(`^upload_bytes_received_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { single: of('single'), chunk: of('chunk') };
}

/** Files in the blob store's temp directory: an upload cut or refused must leave none. */
export async function tempFiles(dataDir: string): Promise<string[]> {
  return readdir(join(dataDir, 'blobs', '.tmp')).catch(() => []);
}

import { connect } from 'node:net';

/**
 * Raw HTTP/1.1 over a socket, for requests that fetch refuses to send or rewrites on the way: a path
 * with `..` or `%2e%2e` segments (WHATWG URLs normalize them away), backslashes, a malformed or
 * contradictory content-length, a body shorter than the declared length.
 */

export interface RawResponse {
  status: number;
  /** the reason phrase of the status line */
  reason: string;
  /** header names in lower case; repeated headers joined with ", " */
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawRequest {
  method: string;
  /** sent exactly as given, not encoded or normalized */
  target: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** end the sending side after the body, whatever content-length said (a client that gives up) */
  halfClose?: boolean;
}

/** Sends one request with `Connection: close` and reads the whole answer until the server closes. */
export function rawRequest(base: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  const headers: Record<string, string> = { host: `${hostname}:${port}`, connection: 'close', ...request.headers };
  const head = [`${request.method} ${request.target} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const parts: Buffer[] = [];
    socket.on('data', (part) => parts.push(part));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(parts)));
      } catch (error) {
        reject(error);
      }
    });
    socket.on('connect', () => {
      socket.write(head);
      if (request.body) socket.write(request.body);
      if (request.halfClose) socket.end();
    });
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no complete HTTP answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3}) ?(.*)$/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP status line: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = raw.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status: Number(match[1]), reason: match[2] ?? '', headers, body };
}

function unchunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('chunked answer cut short');
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(out);
    out.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

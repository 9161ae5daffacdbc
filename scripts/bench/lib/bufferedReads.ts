import { open } from 'node:fs/promises';
import { connect } from 'node:net';

/**
 * The two readers of the read-back benchmark, alike on purpose: each reads into one buffer of the
 * caller's, filled again and again, and counts the bytes; neither allocates per read. So the
 * difference between them is the source (a file, or the service over HTTP) and not the reader:
 * node:http's client hands out a fresh chunk per 64 KiB socket read, and the garbage collection
 * that costs made the reader, not the service, the slower side of a loopback transfer.
 */

/** bytes `start` to the end of `file`, read into `buffer` at each position; resolves how many */
export async function readFileInto(file: string, start: number, buffer: Buffer): Promise<number> {
  const handle = await open(file, 'r');
  try {
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, start + bytes);
      if (bytesRead === 0) return bytes;
      bytes += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** more than any response head this benchmark reads */
const MAX_HEAD = 64 * 1024;

/**
 * `GET url` over HTTP/1.1 (a new connection, closed after), its socket read into `buffer`: the
 * response's status line and headers are parsed, its body is counted to its `Content-Length`.
 * Resolves the status and the body's length; rejects on a body shorter or longer than announced,
 * or one without a `Content-Length` (this reader does not parse chunked bodies).
 */
export function getInto(url: string, buffer: Buffer): Promise<{ status: number; bytes: number }> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let head: Buffer | undefined = Buffer.alloc(0);
    let status = 0;
    let length = 0;
    let bytes = 0;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve({ status, bytes });
    };
    const takeBody = (n: number) => {
      bytes += n;
      if (bytes > length) settle(new Error(`the body ran past its Content-Length ${length}`));
      else if (bytes === length) settle();
    };
    const take = (n: number, filled: Uint8Array) => {
      if (head === undefined) {
        takeBody(n);
        return;
      }
      // the head is small: copied until its end is seen, then only counted
      head = Buffer.concat([head, filled.subarray(0, n)]);
      const end = head.indexOf(HEAD_END);
      if (end < 0) {
        if (head.length > MAX_HEAD) settle(new Error('no end of the response head'));
        return;
      }
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? NaN);
      const contentLength = lines.find((line) => /^content-length:/i.test(line));
      if (!Number.isInteger(status) || contentLength === undefined) {
        settle(new Error(`no status or Content-Length in ${JSON.stringify(lines[0])}`));
        return;
      }
      length = Number(contentLength.slice(contentLength.indexOf(':') + 1).trim());
      const bodyStart = head.length - (end + HEAD_END.length);
      head = undefined;
      takeBody(bodyStart);
    };
    const socket = connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer,
        // true: go on reading (false would pause the socket)
        callback: (n: number, filled: Uint8Array) => {
          take(n, filled);
          return true;
        },
      },
    });
    socket.on('connect', () => socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    socket.on('error', (error) => settle(error));
    socket.on('close', () => settle(new Error(`the connection closed after ${bytes} of ${length} body bytes`)));
  });
}

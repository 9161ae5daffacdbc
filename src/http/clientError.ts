import type { Duplex } from 'node:stream';
import { httpErrorOf } from '../contract/errorMessages.js';

/**
 * What the server answers when a request cannot even be parsed (Node's `clientError`): the status
 * Node would choose, in the contract's style (text/plain, body and reason phrase the same message),
 * then the connection is closed. Node's own answers have an empty body and no content type.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // a response already under way on this connection cannot be replaced; a reset peer reads nothing
  const inProgress = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress) {
    socket.destroy();
    return;
  }
  const [status, message] = statusOfClientError(error.code);
  const body = Buffer.from(message);
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${message}`,
  );
  // end() flushes the answer; a peer that never reads it must not hold the socket open
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/** Node's parser errors: they come before any route, so they are not the service's typed errors */
function statusOfClientError(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return httpErrorOf('REQUEST_TIMEOUT');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'Payload Too Large'];
    default:
      return [400, 'Bad Request'];
  }
}

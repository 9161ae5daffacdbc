import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerClientError } from './clientError.js';
import { clientKeyOf, networkKeyOf } from '../domain/clientKey.js';
import { createConnectionTable } from './connectionTable.js';

export interface ConnectionLimits {
  /** connections open at once; at the cap an idle one of the network holding the most makes room; 0: no cap */
  maxConnections: number;
  /** per client address (an IPv6 /64); past it a new connection is closed at once; 0: no cap */
  maxConnectionsPerClient: number;
  /** per network (an IPv4 /24, an IPv6 /48); past it a new connection is closed at once; 0: no cap */
  maxConnectionsPerNetwork: number;
  /** a new connection's first request line and headers must arrive within this */
  firstRequestTimeoutMs: number;
}

/**
 * Connection-level limits, applied as each connection opens, before a byte of it is parsed (see
 * connectionTable.ts for who gets a place), and the deadline of a connection's first request: a
 * connection that has sent no complete request head within `firstRequestTimeoutMs` is answered
 * 408 `Request Timeout` and closed. Held open without a request, a connection costs its holder
 * nothing but takes a place; a client that has already made a request on it gets the headers
 * timeout of the server for the next ones.
 *
 * Counted by socket address: behind a reverse proxy every client shares the proxy's address, so
 * raise the caps per client and per network (or 0) there and let the proxy limit its clients.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  const table = createConnectionTable<Socket>({
    max: limits.maxConnections,
    perClient: limits.maxConnectionsPerClient,
    perNetwork: limits.maxConnectionsPerNetwork,
  });
  const firstRequestDue = new Map<Socket, NodeJS.Timeout>();

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    const admission = table.admit(socket, clientKeyOf(address), networkKeyOf(address));
    if (!admission.admitted) {
      socket.destroy();
      return;
    }
    admission.evict?.destroy();
    const due = setTimeout(() => {
      firstRequestDue.delete(socket);
      answerClientError(Object.assign(new Error('no request within the first request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    }, limits.firstRequestTimeoutMs);
    firstRequestDue.set(socket, due);
    socket.once('close', () => {
      clearTimeout(firstRequestDue.get(socket));
      firstRequestDue.delete(socket);
      table.remove(socket);
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    clearTimeout(firstRequestDue.get(socket));
    firstRequestDue.delete(socket);
    table.busy(socket);
    res.once('close', () => table.idle(socket));
  });
}

import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { bestEffort } from '../bestEffort.js';

/**
 * The server's connections and whether each is inside a request. Node's own closeIdleConnections
 * leaves a connection that never sent a request (or is half-way through its headers) open; at
 * shutdown those hold no work and are closed at once. Attach right after listening.
 */
export interface ConnectionTracker {
  /** the responses of the requests in flight that have not sent their headers yet answer `Connection: close` */
  lastResponses(): void;
  /** destroys every connection not inside a request (no request yet, or between two) */
  closeIdle(): void;
  /** destroys every connection */
  closeAll(): void;
}

export function trackConnections(server: Server): ConnectionTracker {
  const open = new Map<Socket, { active: number }>();
  const responses = new Set<ServerResponse>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, { active: 0 });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = open.get(req.socket);
    if (!state) return;
    state.active += 1;
    responses.add(res);
    res.once('close', () => {
      state.active -= 1;
      responses.delete(res);
    });
  });
  return {
    lastResponses() {
      for (const res of responses) if (!res.headersSent) noKeepAlive(res);
    },
    closeIdle() {
      for (const [socket, { active }] of open) if (active === 0) socket.destroy();
    },
    closeAll() {
      for (const socket of open.keys()) socket.destroy();
    },
  };
}

const noKeepAlive = (res: ServerResponse) => {
  (res as ServerResponse & { shouldKeepAlive: boolean }).shouldKeepAlive = false;
};

/**
 * Graceful close of the HTTP server: stop accepting connections at once, let the requests in
 * flight finish within `graceMs`, then cut whatever is left. Connections not inside a request are
 * closed as soon as they are (at once, then every 100 ms), and a request arriving meanwhile on a
 * kept-alive connection is answered with `Connection: close`, so no client keeps a connection to a
 * stopping process. Resolves once the server is closed; `cut` tells whether the grace ran out.
 */
export async function closeGracefully(server: Server, graceMs: number, connections?: ConnectionTracker): Promise<{ cut: boolean }> {
  const closed = bestEffort(once(server, 'close'), 'an error ends the wait too: the server is not used again');
  const lastResponses = (_req: IncomingMessage, res: ServerResponse) => noKeepAlive(res);
  // before the app sees the request, so its headers say Connection: close
  server.prependListener('request', lastResponses);
  connections?.lastResponses();
  const closeIdle = () => {
    server.closeIdleConnections();
    connections?.closeIdle();
  };
  server.close();
  closeIdle();
  const idleSweep = setInterval(closeIdle, 100);
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), graceMs)));
  try {
    const outcome = await Promise.race([closed.then(() => 'closed' as const), graceOver]);
    if (outcome === 'cut') {
      server.closeAllConnections();
      connections?.closeAll();
      await closed;
    }
    return { cut: outcome === 'cut' };
  } finally {
    clearInterval(idleSweep);
    clearTimeout(timer);
    server.off('request', lastResponses);
  }
}

/**
 * The command handlers at work. A handler goes on after its connection was cut (its last bytes may
 * already be in: it accepts the item, durably, without anyone to answer), so the stores are closed
 * only once every handler has settled.
 */
export interface InFlight {
  track<A extends unknown[], R>(handler: (...args: A) => Promise<R>): (...args: A) => Promise<R>;
  readonly count: number;
  /** resolves true when none is running, false when `timeoutMs` passed first */
  settled(timeoutMs: number): Promise<boolean>;
}

export function createInFlight(): InFlight {
  let count = 0;
  const waiters = new Set<() => void>();
  return {
    track:
      (handler) =>
      async (...args) => {
        count += 1;
        try {
          return await handler(...args);
        } finally {
          count -= 1;
          if (count === 0) for (const wake of waiters) wake();
        }
      },
    get count() {
      return count;
    },
    async settled(timeoutMs) {
      if (count === 0) return true;
      let wake!: () => void;
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        new Promise<boolean>((resolve) => waiters.add((wake = () => resolve(true)))),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]);
      waiters.delete(wake);
      clearTimeout(timer);
      return done;
    },
  };
}

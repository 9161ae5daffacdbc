import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy in front of the local chain that fails the way a node or provider does mid-settlement:
 * `refuseSend` drops the connection of `eth_sendRawTransaction` before passing it on (the transaction is
 * never sent), `loseSendAnswer` passes it on and drops the connection instead of answering (sent and mined,
 * the answer lost), `down` drops every request.
 */
export type RpcFault = 'none' | 'refuseSend' | 'loseSendAnswer' | 'down';

export interface FaultyRpc {
  readonly url: string;
  fault: RpcFault;
  close(): Promise<void>;
}

export async function startFaultyRpc(target: string): Promise<FaultyRpc> {
  const state: { fault: RpcFault } = { fault: 'none' };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const sends = body.includes('eth_sendRawTransaction');
      if (state.fault === 'down' || (sends && state.fault === 'refuseSend')) {
        req.socket.destroy();
        return;
      }
      fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
        .then(async (answer) => {
          const text = await answer.text();
          if (sends && state.fault === 'loseSendAnswer') {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get fault() {
      return state.fault;
    },
    set fault(value: RpcFault) {
      state.fault = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

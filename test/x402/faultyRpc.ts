import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy in front of the local chain that fails the way a node or provider does mid-settlement:
 * `refuseSend` drops the connection of `eth_sendRawTransaction` before passing it on (the transaction is
 * never sent), `loseSendAnswer` passes it on and drops the connection instead of answering (sent and mined,
 * the answer lost), `down` drops every request.
 */
export type RpcFault = 'none' | 'refuseSend' | 'loseSendAnswer' | 'down';

/**
 * A step run at the settlement's `eth_sendRawTransaction` (then the connection is dropped, unanswered):
 * `before` it is passed on (nothing sent) or `after` the node took it (sent, and mined: ganache mines each
 * transaction as it comes). The crash tests SIGKILL the service here: it waits on this very answer.
 */
export interface SendHook {
  when: 'before' | 'after';
  run(): Promise<void>;
}

export interface FaultyRpc {
  readonly url: string;
  fault: RpcFault;
  /** run once, at the next `eth_sendRawTransaction` */
  onSend: SendHook | undefined;
  close(): Promise<void>;
}

export async function startFaultyRpc(target: string): Promise<FaultyRpc> {
  const state: { fault: RpcFault; onSend: SendHook | undefined } = { fault: 'none', onSend: undefined };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const sends = body.includes('eth_sendRawTransaction');
      const hook = sends ? state.onSend : undefined;
      if (hook) state.onSend = undefined;
      if (hook?.when === 'before') {
        void hook.run().finally(() => req.socket.destroy());
        return;
      }
      if (state.fault === 'down' || (sends && state.fault === 'refuseSend')) {
        req.socket.destroy();
        return;
      }
      fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
        .then(async (answer) => {
          const text = await answer.text();
          if (hook) {
            await hook.run();
            req.socket.destroy();
            return;
          }
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
    get onSend() {
      return state.onSend;
    },
    set onSend(value: SendHook | undefined) {
      state.onSend = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, http, publicActions, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { settle, verify } from 'x402/facilitator';
import { PaymentPayloadSchema, PaymentRequirementsSchema } from 'x402/types';
import { localViemChain } from '../support/testUsdc.js';

/**
 * An x402 facilitator on 127.0.0.1 (port 0) built from the `x402` package's own facilitator functions,
 * `verify` and `settle` of `x402/facilitator`, on viem clients of the local chain, with its own key paying
 * the gas. It speaks what the package's client calls (`useFacilitator`, node_modules/x402/dist/esm/verify/
 * index.mjs, x402 1.2.0): `POST /verify` and `POST /settle`, each with the JSON body
 * `{ x402Version, paymentPayload, paymentRequirements }`, answered 200 with the `VerifyResponse` or
 * `SettleResponse` (the client throws on another status); a body its schemas refuse is 400, as the
 * package's example facilitator answers (coinbase/x402 examples/typescript/facilitator/index.ts).
 *
 * Faults: `down` drops every connection (the facilitator unreachable); `beforeSettle` runs once before the
 * next settlement (a test spends the payer's USDC there, so x402's `settle` itself answers the failure).
 */
export interface Facilitator {
  readonly url: string;
  /** the account that submits the settlements */
  readonly address: Hex;
  down: boolean;
  beforeSettle: (() => Promise<void>) | undefined;
  /** requests answered so far, by path */
  readonly calls: Record<string, number>;
  close(): Promise<void>;
}

export async function startFacilitator(rpcUrl: string, chainId: number, key: Hex): Promise<Facilitator> {
  const chain = localViemChain(chainId, rpcUrl);
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  const account = privateKeyToAccount(key);
  const signer = createWalletClient({ account, chain, transport: http(rpcUrl), pollingInterval: 200 }).extend(publicActions);
  const state = { down: false, beforeSettle: undefined as (() => Promise<void>) | undefined, calls: {} as Record<string, number> };

  const answer = async (path: string, body: unknown): Promise<[number, unknown]> => {
    const parsed = body as { paymentPayload?: unknown; paymentRequirements?: unknown };
    const payload = PaymentPayloadSchema.safeParse(parsed.paymentPayload);
    const requirements = PaymentRequirementsSchema.safeParse(parsed.paymentRequirements);
    if (!payload.success || !requirements.success) return [400, { error: 'Invalid request' }];
    if (path === '/verify') return [200, await verify(reader, payload.data, requirements.data)];
    const hook = state.beforeSettle;
    state.beforeSettle = undefined;
    await hook?.();
    return [200, await settle(signer, payload.data, requirements.data)];
  };

  const server: Server = createServer((req, res) => {
    if (state.down) {
      req.socket.destroy();
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || (path !== '/verify' && path !== '/settle')) {
        res.writeHead(404).end();
        return;
      }
      state.calls[path] = (state.calls[path] ?? 0) + 1;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Invalid request' }));
        return;
      }
      answer(path, body).then(
        ([status, json]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json)),
        (error: unknown) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    address: account.address,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    get beforeSettle() {
      return state.beforeSettle;
    },
    set beforeSettle(value: (() => Promise<void>) | undefined) {
      state.beforeSettle = value;
    },
    calls: state.calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

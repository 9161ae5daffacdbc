import { createRequire } from 'node:module';

/**
 * A local Ethereum development chain (ganache, from the npm registry) for tests, on 127.0.0.1 and a
 * port the system picks, with deterministic accounts (the same ten funded addresses and keys every
 * run) and a block mined for each transaction as it comes.
 */
export interface LocalChain {
  /** the JSON-RPC endpoint, `http://127.0.0.1:<port>` */
  readonly url: string;
  /** the funded accounts: address (lower case, as ganache lists them) and private key (0x hex) */
  readonly accounts: readonly { address: string; privateKey: string }[];
  /** one JSON-RPC call in-process */
  request(method: string, params?: unknown[]): Promise<unknown>;
  /** mines `blocks` empty blocks */
  mine(blocks?: number): Promise<void>;
  /** sends `wei` from an unlocked account to `to` (mined at once): the transaction hash */
  send(from: string, to: string, wei: bigint): Promise<string>;
  stop(): Promise<void>;
}

interface GanacheServer {
  listen(port: number, host: string): Promise<void>;
  address(): { port: number };
  close(): Promise<void>;
  provider: {
    request(args: { method: string; params: unknown[] }): Promise<unknown>;
    getInitialAccounts(): Record<string, { secretKey: string }>;
  };
}

/** `chainId`: 1337 unless a test needs the id of a named network (x402 knows base-sepolia as 84532) */
export async function startLocalChain(options: { chainId?: number } = {}): Promise<LocalChain> {
  // ganache's types pull in its whole EVM; the few calls used here are typed above
  const ganache = createRequire(import.meta.url)('ganache') as { server(options: unknown): GanacheServer };
  const server = ganache.server({ wallet: { deterministic: true }, logging: { quiet: true }, chain: { chainId: options.chainId ?? 1337 } });
  await server.listen(0, '127.0.0.1');
  const request = (method: string, params: unknown[] = []) => server.provider.request({ method, params });
  const accounts = Object.entries(server.provider.getInitialAccounts()).map(([address, { secretKey }]) => ({ address, privateKey: secretKey }));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    accounts,
    request,
    async mine(blocks = 1) {
      for (let i = 0; i < blocks; i++) await request('evm_mine');
    },
    async send(from, to, wei) {
      return (await request('eth_sendTransaction', [{ from, to, value: `0x${wei.toString(16)}` }])) as string;
    },
    stop: () => server.close(),
  };
}

import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createWalletClient, createPublicClient, http, defineChain, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * The USDC-like token of test/fixtures/TestUsdc.sol (ERC-20 with EIP-3009 under USDC's EIP-712 domain),
 * compiled here with solc and deployed to a local chain, so x402 payments are real signatures settled by
 * a real contract.
 */
export interface TestUsdc {
  address: Hex;
  abi: Abi;
  mint(to: Hex, units: bigint): Promise<void>;
  balanceOf(owner: Hex): Promise<bigint>;
  authorizationState(from: Hex, nonce: Hex): Promise<boolean>;
}

const SOURCE = fileURLToPath(new URL('../fixtures/TestUsdc.sol', import.meta.url));

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

async function compile(): Promise<{ abi: Abi; bytecode: Hex }> {
  // solc's emscripten code adds process listeners that rethrow any unhandled rejection and exit on
  // any uncaught exception, for the whole test process: loaded, it is given back the listeners it found
  const before = { rejection: process.listeners('unhandledRejection'), exception: process.listeners('uncaughtException') };
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  for (const listener of process.listeners('unhandledRejection')) if (!before.rejection.includes(listener)) process.off('unhandledRejection', listener);
  for (const listener of process.listeners('uncaughtException')) if (!before.exception.includes(listener)) process.off('uncaughtException', listener);
  const input = {
    language: 'Solidity',
    sources: { 'TestUsdc.sol': { content: await readFile(SOURCE, 'utf8') } },
    settings: { evmVersion: 'london', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestUsdc.sol']!['TestUsdc']!;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/** a viem chain for the local node (its id as the node reports it) */
export const localViemChain = (id: number, url: string) =>
  defineChain({ id, name: `local-${id}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });

export async function deployTestUsdc(rpcUrl: string, chainId: number, deployerKey: Hex): Promise<TestUsdc> {
  const { abi, bytecode } = await compile();
  const chain = localViemChain(chainId, rpcUrl);
  const account = privateKeyToAccount(deployerKey);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  const hash = await wallet.deployContract({ abi, bytecode });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  const address = receipt.contractAddress!;
  return {
    address,
    abi,
    async mint(to, units) {
      const tx = await wallet.writeContract({ address, abi, functionName: 'mint', args: [to, units] });
      await reader.waitForTransactionReceipt({ hash: tx });
    },
    balanceOf: async (owner) => (await reader.readContract({ address, abi, functionName: 'balanceOf', args: [owner] })) as bigint,
    authorizationState: async (from, nonce) =>
      (await reader.readContract({ address, abi, functionName: 'authorizationState', args: [from, nonce] })) as boolean,
  };
}

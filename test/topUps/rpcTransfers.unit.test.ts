import { expect } from 'chai';
import { createEthereumTransfers, WrongChain } from '../../src/adapters/ethereum/rpcTransfers.js';
import { GatewayRequestError } from '../../src/ports/gatewayErrors.js';

/**
 * The JSON-RPC adapter against answers a local chain does not give on demand (a reverted transfer,
 * a node without the receipt yet, an error answer): a stand-in endpoint at the edge, answering per
 * method. The real chain is test/topUps/ethereum.test.ts.
 */
const TX = `0x${'ab'.repeat(32)}`;
const FROM = '0x90f8bf6a479f320ead074411a4b0e7944ea8c9c1';
const TO = '0xffcf8fdee72ac11b5c542428b35eef5769c409f0';

function endpoint(results: Record<string, unknown>): typeof fetch {
  return async (_input, init) => {
    const { id, method } = JSON.parse(String(init?.body)) as { id: number; method: string };
    const body = method in results ? { jsonrpc: '2.0', id, result: results[method] } : { jsonrpc: '2.0', id, error: { code: -32601, message: `no ${method}` } };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}
const transfers = (results: Record<string, unknown>) => createEthereumTransfers({ rpcUrl: 'http://rpc.test', timeoutMs: 1000, fetch: endpoint(results) });
const mined = { hash: TX, from: FROM, to: TO, value: '0x3b9aca00', blockNumber: '0x10' };
const succeeded = { transactionHash: TX, status: '0x1' };

describe('ethereum transfers through JSON-RPC', () => {
  it('reads a mined transfer: checksummed addresses, the value in wei, confirmations counting its own block', async () => {
    expect(await transfers({ eth_getTransactionByHash: mined, eth_getTransactionReceipt: succeeded, eth_blockNumber: '0x12' }).transfer(TX)).to.deep.equal({
      txId: TX,
      sender: '0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1',
      target: '0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0',
      quantity: 1_000_000_000n,
      failed: false,
      status: { confirmed: true, blockHeight: 16, confirmations: 3 },
    });
  });

  it('reads a reverted transfer (receipt status 0) as failed: it moved nothing', async () => {
    const transfer = await transfers({
      eth_getTransactionByHash: mined,
      eth_getTransactionReceipt: { ...succeeded, status: '0x0' },
      eth_blockNumber: '0x12',
    }).transfer(TX);
    expect(transfer?.failed).to.equal(true);
  });

  it('reads a transfer not in a block yet, or mined without a receipt yet, as not confirmed; an unknown hash as undefined', async () => {
    expect((await transfers({ eth_getTransactionByHash: { ...mined, blockNumber: null } }).transfer(TX))?.status).to.deep.equal({ confirmed: false });
    expect((await transfers({ eth_getTransactionByHash: mined, eth_getTransactionReceipt: null }).transfer(TX))?.status).to.deep.equal({ confirmed: false });
    expect(await transfers({ eth_getTransactionByHash: null }).transfer(TX)).to.equal(undefined);
    expect(await transfers({}).transfer('0x1234')).to.equal(undefined);
  });

  it('with a chain id, asks eth_chainId once before the first read; another chain is WrongChain and no transaction is read', async () => {
    const asked: string[] = [];
    const results = { eth_chainId: '0x2105', eth_getTransactionByHash: mined, eth_getTransactionReceipt: succeeded, eth_blockNumber: '0x12' };
    const counting: typeof fetch = async (input, init) => (
      asked.push((JSON.parse(String(init?.body)) as { method: string }).method),
      endpoint(results)(input, init)
    );
    const base = createEthereumTransfers({ rpcUrl: 'http://rpc.test', chainId: 8453, timeoutMs: 1000, fetch: counting });
    expect((await base.transfer(TX))?.quantity).to.equal(1_000_000_000n);
    expect((await base.transfer(TX))?.quantity).to.equal(1_000_000_000n);
    expect(asked.filter((m) => m === 'eth_chainId')).to.have.length(1);
    asked.length = 0;
    const polygon = createEthereumTransfers({ rpcUrl: 'http://rpc.test', chainId: 137, timeoutMs: 1000, fetch: counting });
    const error = await polygon.transfer(TX).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(WrongChain);
    expect(GatewayRequestError.is(error)).to.equal(true);
    expect((error as Error).message).to.equal('http://rpc.test is chain 8453, not chain 137 as configured');
    expect(asked).to.deep.equal(['eth_chainId']);
  });

  it('asks only with the canonical hash (lower case): another spelling is no transaction it reads', async () => {
    const asked: string[] = [];
    const counting: typeof fetch = async (input, init) => (asked.push(String(init?.body)), endpoint({ eth_getTransactionByHash: mined })(input, init));
    const source = createEthereumTransfers({ rpcUrl: 'http://rpc.test', timeoutMs: 1000, fetch: counting });
    expect(await source.transfer(TX.toUpperCase().replace('0X', '0x'))).to.equal(undefined);
    expect(asked).to.deep.equal([]);
  });

  it("refuses, as a failed read, an answer about another transaction than the one asked (its hash, or its receipt's)", async () => {
    const other = `0x${'cd'.repeat(32)}`;
    for (const results of [
      { eth_getTransactionByHash: { ...mined, hash: other } },
      { eth_getTransactionByHash: { ...mined, hash: undefined } },
      { eth_getTransactionByHash: mined, eth_getTransactionReceipt: { ...succeeded, transactionHash: other }, eth_blockNumber: '0x12' },
    ]) {
      const error = await transfers(results)
        .transfer(TX)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(GatewayRequestError.is(error), String(error)).to.equal(true);
    }
  });

  it('throws a GatewayRequestError (the claim answers 503) for an error answer or a transaction without its fields', async () => {
    for (const results of [{}, { eth_getTransactionByHash: { hash: TX, to: TO } }]) {
      const error = await transfers(results)
        .transfer(TX)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(GatewayRequestError.is(error), String(error)).to.equal(true);
    }
  });
});

import { expect } from 'chai';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { GatewayRejected, GatewayRequestError } from '../../src/ports/gatewayErrors.js';
import type { ArweaveGateway, ChunkUpload, TransactionHeader } from '../../src/ports/gateway.js';
import { MAX_GATEWAY_ANSWER_BYTES } from '../../src/adapters/gateway/request.js';
import { createHeightGuard } from '../../src/adapters/gateway/heightGuard.js';
import { eventually } from '../support/eventually.js';
import { startScriptedGateway, type ScriptedGateway } from './scriptedGateway.js';

const TX_ID = 'UGtqiCtZTKdDVqv0_vTQKBIt7XlOqHhTF1z7naPuhDo';
const BLOCK_HASH = 'heuykvartplujqksm14m32pppembctqf2y3jah5ep1i8a8g4lv6nso3zob3x0qys';
const header: TransactionHeader = { id: TX_ID, format: 2, data_root: 'O5pWr9emcTCZCog2mLsx1oILM5LhWt31xz_16qteDow', data_size: '600000', signature: 'c2ln' };
const chunk: ChunkUpload = { data_root: header.data_root, data_size: '600000', data_path: 'cGF0aA', offset: '262143', chunk: 'Ynl0ZXM' };

/** every call of the port once, named for the messages of failing tests */
const calls: [string, (gateway: ArweaveGateway) => Promise<unknown>][] = [
  ['price', (g) => g.price(1000)],
  ['anchor', (g) => g.anchor()],
  ['postTransaction', (g) => g.postTransaction(header)],
  ['postChunk', (g) => g.postChunk(chunk)],
  ['transactionStatus', (g) => g.transactionStatus(TX_ID)],
  ['currentHeight', (g) => g.currentHeight()],
];

/** what a call throws; fails the test when it resolves */
async function failure(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  expect.fail('the call resolved');
}

function expectRetryable(error: Error, fields: { kind: string; status?: number; code?: string; message?: string }, label?: string) {
  expect(error, label).to.be.instanceOf(GatewayRequestError);
  const { kind, status, code, retryable, message } = error as GatewayRequestError;
  expect({ kind, status, code, retryable, ...(fields.message === undefined ? {} : { message }) }, label).to.deep.equal({
    status: undefined,
    code: undefined,
    retryable: true,
    ...fields,
  });
}

describe('arweave gateway client when the gateway fails', () => {
  let gateway: ScriptedGateway;
  let client: ArweaveGateway;

  /** a client whose time limit the tests of timeouts run into (the others get a limit a loaded machine never reaches) */
  let hasty: ArweaveGateway;

  beforeEach(async () => {
    gateway = await startScriptedGateway();
    client = createArweaveGateway({ gatewayUrl: gateway.url, timeoutMs: 20_000 });
    hasty = createArweaveGateway({ gatewayUrl: gateway.url, timeoutMs: 50 });
  });
  afterEach(() => gateway.close().catch(() => {}));

  it('throws a retryable GatewayRequestError of kind "status" from every call when the gateway answers 503', async () => {
    for (const [method, path] of [
      ['GET', '/price/1000'],
      ['GET', '/tx_anchor'],
      ['POST', '/tx'],
      ['POST', '/chunk'],
      ['GET', `/tx/${TX_ID}/status`],
      ['GET', '/info'],
    ] as const) {
      gateway.answer(method, path, { status: 503, body: 'Service Unavailable' });
    }
    for (const [name, call] of calls) expectRetryable(await failure(call(client)), { kind: 'status', status: 503 }, name);
    expect((await failure(client.postChunk(chunk))).message).to.equal(`POST ${gateway.url}/chunk answered HTTP 503: Service Unavailable`);
    expect((await failure(client.price(1000))).message).to.equal(`GET ${gateway.url}/price/1000 answered HTTP 503`);
  });

  it('throws a retryable GatewayRequestError of kind "unreachable", ECONNREFUSED, from every call when nothing listens', async () => {
    await gateway.close();
    for (const [name, call] of calls) expectRetryable(await failure(call(client)), { kind: 'unreachable', code: 'ECONNREFUSED' }, name);
    expect((await failure(client.postTransaction(header))).message).to.equal(`POST ${gateway.url}/tx failed (ECONNREFUSED)`);
  });

  it('throws a retryable GatewayRequestError of kind "timeout" from every call when no answer comes within timeoutMs', async () => {
    for (const [method, path] of [
      ['GET', '/price/1000'],
      ['GET', '/tx_anchor'],
      ['POST', '/tx'],
      ['POST', '/chunk'],
      ['GET', `/tx/${TX_ID}/status`],
      ['GET', '/info'],
    ] as const) {
      gateway.answer(method, path, 'hang');
    }
    for (const [name, call] of calls) expectRetryable(await failure(call(hasty)), { kind: 'timeout' }, name);
    expect((await failure(hasty.postChunk(chunk))).message).to.equal(`POST ${gateway.url}/chunk timed out after 50 ms`);
  });

  it('times out an answer whose body stops coming: the limit covers the body too', async () => {
    gateway.answer('GET', `/tx/${TX_ID}/status`, 'stall');
    expectRetryable(await failure(hasty.transactionStatus(TX_ID)), {
      kind: 'timeout',
      message: `GET ${gateway.url}/tx/${TX_ID}/status timed out after 50 ms`,
    });
  });

  it('cuts an answer without end past 1 MiB: a retryable GatewayRequestError of kind "answer" from every call, the connection closed', async () => {
    const paths: Record<string, string> = {
      price: 'GET /price/1000',
      anchor: 'GET /tx_anchor',
      postTransaction: 'POST /tx',
      postChunk: 'POST /chunk',
      transactionStatus: `GET /tx/${TX_ID}/status`,
      currentHeight: 'GET /info',
    };
    for (const route of Object.values(paths)) {
      const [method, path] = route.split(' ') as ['GET' | 'POST', string];
      gateway.answer(method, path, 'endless');
    }
    // no time limit that could come first: the size bound alone ends each call
    const patient = createArweaveGateway({ gatewayUrl: gateway.url, timeoutMs: 600_000 });
    for (const [name, call] of calls) {
      const [method, path] = paths[name]!.split(' ');
      expectRetryable(
        await failure(call(patient)),
        { kind: 'answer', status: 200, message: `${method} ${gateway.url}${path} answered more than ${MAX_GATEWAY_ANSWER_BYTES} bytes: cut` },
        name,
      );
    }
    // each answer was read no further: the gateway saw every connection closed by the client
    await eventually(
      () => gateway.endless.length === 6 && gateway.endless.every((answer) => answer.closed),
      Boolean,
      'every endless answer closed by the client',
    );
  });

  it('refuses an answer declaring more than 1 MiB before reading it', async () => {
    gateway.answer('GET', '/info', 'huge');
    expectRetryable(await failure(client.currentHeight()), {
      kind: 'answer',
      status: 200,
      message: `GET ${gateway.url}/info answered more than ${MAX_GATEWAY_ANSWER_BYTES} bytes: cut`,
    });
  });

  it('reads an answer of exactly 1 MiB', async () => {
    gateway.answer('GET', '/tx_anchor', { status: 200, body: `${BLOCK_HASH}${' '.repeat(MAX_GATEWAY_ANSWER_BYTES - BLOCK_HASH.length)}` });
    expect(await createArweaveGateway({ gatewayUrl: gateway.url, timeoutMs: 600_000 }).anchor()).to.equal(BLOCK_HASH);
  });

  it('throws a retryable GatewayRequestError of kind "answer" for a block height its guard refuses, then answers the last one accepted', async () => {
    const logged: string[] = [];
    const guarded = createArweaveGateway({
      gatewayUrl: gateway.url,
      timeoutMs: 600_000,
      heights: createHeightGuard({ log: (message) => logged.push(message) }),
    });
    gateway.answer('GET', '/info', { status: 200, body: JSON.stringify({ height: 1_500_000 }), contentType: 'application/json' });
    expect(await guarded.currentHeight()).to.equal(1_500_000);
    gateway.answer('GET', '/info', { status: 200, body: JSON.stringify({ height: 9_007_199_254_740_991 }), contentType: 'application/json' });
    const error = await failure(guarded.currentHeight());
    expectRetryable(error, { kind: 'answer', status: 200 });
    expect(error.message).to.match(
      new RegExp(
        `^GET ${gateway.url}/info answered block height 9007199254740991, refused: above 15001\\d\\d, the most blocks possible since the last accepted height$`,
      ),
    );
    gateway.answer('GET', '/info', { status: 200, body: JSON.stringify({ height: 1_499_990 }), contentType: 'application/json' });
    expect(await guarded.currentHeight(), 'a height a little behind: the highest accepted stays').to.equal(1_500_000);
    expect(logged).to.have.length(2);
  });

  it('throws a retryable error, not a rejection, for a post answered 429 or 408: the gateway asks for patience', async () => {
    gateway.answer('POST', '/tx', { status: 429, body: 'Too Many Requests' });
    gateway.answer('POST', '/chunk', { status: 408 });
    expectRetryable(await failure(client.postTransaction(header)), { kind: 'status', status: 429 });
    expectRetryable(await failure(client.postChunk(chunk)), { kind: 'status', status: 408 });
  });

  it('throws a GatewayRejected, not retryable, with status and body, for a transaction refused that the gateway does not have', async () => {
    gateway.answer('POST', '/tx', { status: 400, body: 'Transaction verification failed.' });
    const error = await failure(client.postTransaction(header));

    expect(error).to.be.instanceOf(GatewayRejected);
    const { status, body, retryable, message } = error as GatewayRejected;
    expect({ status, body, retryable, message }).to.deep.equal({
      status: 400,
      body: 'Transaction verification failed.',
      retryable: false,
      message: `POST ${gateway.url}/tx refused transaction ${TX_ID}: HTTP 400: Transaction verification failed.`,
    });
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal(['POST /tx', `GET /tx/${TX_ID}/status`]);
  });

  it('counts a transaction as posted when the gateway answers 208 "Transaction already processed."', async () => {
    gateway.answer('POST', '/tx', { status: 208, body: 'Transaction already processed.' });
    await client.postTransaction(header);
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal(['POST /tx']);
  });

  it('counts a refused post as done when the gateway already has the transaction, pending or confirmed', async () => {
    gateway.answer('POST', '/tx', { status: 404, body: 'Not Found' });
    gateway.answer('GET', `/tx/${TX_ID}/status`, { status: 202, body: 'Pending' });
    await client.postTransaction(header);
    gateway.answer('GET', `/tx/${TX_ID}/status`, {
      status: 200,
      body: JSON.stringify({ block_height: 7, block_indep_hash: BLOCK_HASH, number_of_confirmations: 2 }),
    });
    await client.postTransaction(header);
  });

  it('rejects a chunk with an error arweave-js gives up on, and throws a retryable error for one it retries', async () => {
    gateway.answer('POST', '/chunk', { status: 400, body: '{"error":"invalid_proof"}', contentType: 'application/json' });
    const error = await failure(client.postChunk(chunk));
    expect(error).to.be.instanceOf(GatewayRejected);
    expect({ ...(error as GatewayRejected), message: error.message }).to.deep.include({
      status: 400,
      body: '{"error":"invalid_proof"}',
      message: `POST ${gateway.url}/chunk refused the chunk ending at 262143 of ${header.data_root}: HTTP 400: {"error":"invalid_proof"}`,
    });

    gateway.answer('POST', '/chunk', { status: 400, body: '{"error":"data_root_not_found"}', contentType: 'application/json' });
    expectRetryable(await failure(client.postChunk(chunk)), { kind: 'status', status: 400 });
  });

  it('reads a status of 202 Pending, 404, and the JSON of a transaction in a block', async () => {
    const path = `/tx/${TX_ID}/status`;
    gateway.answer('GET', path, { status: 202, body: 'Pending' });
    expect(await client.transactionStatus(TX_ID)).to.deep.equal({ status: 'pending' });
    gateway.answer('GET', path, { status: 404, body: 'Not Found.' });
    expect(await client.transactionStatus(TX_ID)).to.deep.equal({ status: 'not_found' });
    gateway.answer('GET', path, { status: 200, body: JSON.stringify({ block_height: 1_500_000, block_indep_hash: BLOCK_HASH, number_of_confirmations: 18 }) });
    expect(await client.transactionStatus(TX_ID)).to.deep.equal({ status: 'confirmed', blockHeight: 1_500_000, confirmations: 18, blockHash: BLOCK_HASH });
  });

  it('throws a retryable GatewayRequestError of kind "answer" for a success whose body it cannot read', async () => {
    gateway.answer('GET', `/tx/${TX_ID}/status`, { status: 200, body: '{"block_height":"7","number_of_confirmations":1}' });
    gateway.answer('GET', '/tx_anchor', { status: 200, body: '<html>gateway</html>' });
    gateway.answer('GET', '/price/1000', { status: 200, body: '-5' });
    expectRetryable(await failure(client.transactionStatus(TX_ID)), {
      kind: 'answer',
      status: 200,
      message: `GET ${gateway.url}/tx/${TX_ID}/status answered without a block height and confirmations`,
    });
    expectRetryable(await failure(client.anchor()), {
      kind: 'answer',
      status: 200,
      message: `GET ${gateway.url}/tx_anchor answered without a block hash or tx id`,
    });
    expectRetryable(await failure(client.price(1000)), {
      kind: 'answer',
      status: 200,
      message: `GET ${gateway.url}/price/1000 answered without a price in winston`,
    });
  });

  it('sends the header and the chunk as JSON, keeping a path prefix of the gateway URL', async () => {
    const prefixed = createArweaveGateway({ gatewayUrl: `${gateway.url}/arweave/`, timeoutMs: 1000 });
    gateway.answer('POST', '/arweave/tx', { status: 200, body: 'OK' });
    gateway.answer('POST', '/arweave/chunk', { status: 200, body: '{}' });
    await prefixed.postTransaction(header);
    await prefixed.postChunk(chunk);

    expect(gateway.requests.map(({ method, path, contentType, body }) => ({ method, path, contentType, body: JSON.parse(body) as unknown }))).to.deep.equal([
      { method: 'POST', path: '/arweave/tx', contentType: 'application/json', body: header },
      { method: 'POST', path: '/arweave/chunk', contentType: 'application/json', body: chunk },
    ]);
  });

  it('refuses a malformed transaction id or size without asking the gateway', async () => {
    expect(await failure(client.transactionStatus('../info'))).to.be.instanceOf(RangeError);
    expect(await failure(client.postTransaction({ ...header, id: 'short' }))).to.be.instanceOf(RangeError);
    expect(await failure(client.price(-1))).to.be.instanceOf(RangeError);
    expect(gateway.requests).to.deep.equal([]);
  });

  it('stops a call when the caller aborts it, with an AbortError rather than a gateway failure', async () => {
    gateway.answer('POST', '/chunk', 'hang');
    const slow = createArweaveGateway({ gatewayUrl: gateway.url, timeoutMs: 600_000 });
    const stop = new AbortController();
    const call = failure(slow.postChunk(chunk, { signal: stop.signal }));
    stop.abort();
    const error = await call;
    expect(error).not.to.be.instanceOf(GatewayRequestError);
    expect(error.name).to.equal('AbortError');
  });
});

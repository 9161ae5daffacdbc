import { access } from 'node:fs/promises';
import { connect } from 'node:net';
import { expect } from 'chai';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { GatewayRequestError } from '../../src/ports/gatewayErrors.js';
import { startArlocal, type Arlocal } from '../support/arlocal.js';
import { eventually } from '../support/eventually.js';

/** how a TCP connection to host:port ends: 'connected' or the error code */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('arlocal test harness', () => {
  const started: Arlocal[] = [];
  const start = async () => {
    const arlocal = await startArlocal();
    started.push(arlocal);
    return arlocal;
  };
  afterEach(() => Promise.all(started.splice(0).map((a) => a.stop())));

  it('runs two instances at once, each on its own port, with its own directory and chain', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    await a.mine(2);

    expect(a.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(b.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.url).not.to.equal(b.url);
    expect(a.dir).not.to.equal(b.dir);
    expect(await createArweaveGateway({ gatewayUrl: a.url }).currentHeight()).to.equal(2);
    expect(await createArweaveGateway({ gatewayUrl: b.url }).currentHeight()).to.equal(0);
  });

  it('listens on 127.0.0.1 only: the same port on 127.0.0.2, also loopback, refuses connections', async () => {
    const arlocal = await start();
    const port = Number(new URL(arlocal.url).port);

    expect(await tryConnect('127.0.0.1', port)).to.equal('connected');
    expect(await tryConnect('127.0.0.2', port)).to.equal('ECONNREFUSED');
  });

  it('keeps what arlocal prints out of the test output, for a failing test to show', async () => {
    const arlocal = await start();
    // arlocal answers 404 to a chunk without data, and prints the TypeError it caught
    const answer = await fetch(`${arlocal.url}/chunk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).to.equal(404);
    // printed on another pipe than the answer, so it may come after it
    const printed = "error: TypeError: Cannot read properties of undefined (reading 'replace')";
    await eventually(() => arlocal.output().includes(printed), Boolean, 'the error printed');
  });

  it('stops: the port refuses connections and the directory is gone; stopping again changes nothing', async () => {
    const arlocal = await start();
    expect(await exists(arlocal.dir)).to.equal(true);
    await arlocal.stop();

    const error = await createArweaveGateway({ gatewayUrl: arlocal.url })
      .currentHeight()
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(GatewayRequestError);
    expect((error as GatewayRequestError).code).to.equal('ECONNREFUSED');
    expect(await exists(arlocal.dir)).to.equal(false);
    await arlocal.stop();
  });
});

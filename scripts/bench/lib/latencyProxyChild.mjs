// The latency proxy's process (see latencyProxy.ts): plain JS, so it starts without a TypeScript loader.
import { connect, createServer } from 'node:net';

const [targetPort, delayArg] = process.argv.slice(2);
const oneWayMs = Number(delayArg) / 2;

/**
 * `bytes` written to `to` one way's delay after they arrived. Timers of one duration fire in the
 * order they were set, so a connection's bytes keep their order.
 */
function later(to, bytes) {
  if (oneWayMs === 0) to.write(bytes);
  else setTimeout(() => to.write(bytes), oneWayMs);
}

const server = createServer((client) => {
  client.pause();
  const start = () => {
    const upstream = connect(Number(targetPort), '127.0.0.1', () => client.resume());
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    client.on('data', (bytes) => later(upstream, bytes));
    upstream.on('data', (bytes) => later(client, bytes));
    // an end or a reset travels as late as the bytes before it
    const close = (socket) => () => (oneWayMs === 0 ? socket.destroy() : setTimeout(() => socket.destroy(), oneWayMs));
    client.on('close', close(upstream));
    upstream.on('close', close(client));
    client.on('error', () => {});
    upstream.on('error', () => {});
  };
  // the connection's handshake takes a round trip too
  if (oneWayMs === 0) start();
  else setTimeout(start, 2 * oneWayMs);
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));

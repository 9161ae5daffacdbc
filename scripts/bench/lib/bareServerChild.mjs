// The bare baseline server (see bareServer.ts): node:http answering every request with one fixed
// JSON body, in a process of its own as the service is. Plain JS: it starts without a TS loader.
import { createServer } from 'node:http';

const body = Buffer.from(process.argv[2] ?? '{}');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }).end(body));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));

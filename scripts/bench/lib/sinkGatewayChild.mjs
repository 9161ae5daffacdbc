// The sink gateway's process (see sinkGateway.ts): plain JS, so it starts without a TypeScript loader.
import { createServer } from 'node:http';

const tally = { txs: 0, chunks: 0, chunkBytes: 0, bodyBytes: 0 };
const CHUNK_FIELD = Buffer.from('"chunk":"');

/** decoded length of the base64url `chunk` field, found without parsing 350 KB of JSON */
function chunkLength(body) {
  const start = body.indexOf(CHUNK_FIELD);
  if (start < 0) return 0;
  const from = start + CHUNK_FIELD.length;
  const end = body.indexOf(0x22, from);
  return Math.floor(((end - from) * 3) / 4);
}

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    const body = Buffer.concat(parts);
    tally.bodyBytes += body.length;
    if (req.method === 'POST' && req.url === '/tx') tally.txs++;
    else if (req.method === 'POST' && req.url === '/chunk') {
      tally.chunks++;
      tally.chunkBytes += chunkLength(body);
    } else {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send(tally));
process.on('disconnect', () => process.exit(0));

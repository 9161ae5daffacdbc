// A sink ar.io gateway's process (see opticalSink.ts): plain JS, so it starts without a TypeScript loader.
// POST /ar-io/admin/queue-data-item as ar-io-node answers it (src/routes/ar-io.ts at dec86f8): 401 without
// the admin key, 400 unless a non-empty JSON array of headers, 200 `{"message":"Data item(s) queued"}`.
// The headers are counted, not kept.
import { createServer } from 'node:http';

const key = process.env.SINK_ADMIN_KEY;
const tally = { posts: 0, headers: 0, refused: 0 };
const ids = new Set();

const server = createServer((req, res) => {
  if (req.headers.authorization !== `Bearer ${key}`) {
    tally.refused++;
    res.writeHead(401).end('Unauthorized');
    return;
  }
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    let headers;
    try {
      headers = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      headers = undefined;
    }
    if (req.method !== 'POST' || req.url !== '/ar-io/admin/queue-data-item' || !Array.isArray(headers) || headers.length === 0) {
      tally.refused++;
      res.writeHead(400).end('Must provide array of data item headers');
      return;
    }
    tally.posts++;
    for (const h of headers) ids.add(h.id);
    tally.headers = ids.size;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"Data item(s) queued"}');
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send(tally));
process.on('disconnect', () => process.exit(0));

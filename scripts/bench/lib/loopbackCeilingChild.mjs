// The loopback ceiling of the read-back benchmark (see loopbackCeiling.ts): a raw TCP server in a
// process of its own, as the service is, answering each connection with a minimal HTTP response of
// `argv[2]` bytes sent from one 1 MiB buffer in memory, again and again. No file is read, no request
// is parsed, nothing is allocated per write: the fastest any server in Node can hand bytes to a
// loopback socket here. Plain JS: it starts without a TS loader.
import { createServer } from 'node:net';

const length = Number(process.argv[2]);
const block = Buffer.alloc(1 << 20, 0x61);
const server = createServer((socket) => {
  socket.on('error', () => socket.destroy());
  // the request is not read: the answer is the same for every request
  socket.resume();
  let left = length;
  const send = () => {
    while (left > 0) {
      const n = Math.min(left, block.length);
      left -= n;
      // the same bytes every time, so handing the one buffer out again while queued changes nothing
      if (!socket.write(n === block.length ? block : block.subarray(0, n))) {
        socket.once('drain', send);
        return;
      }
    }
  };
  socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`);
  send();
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));

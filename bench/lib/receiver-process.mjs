/**
 * A counting callback receiver in a process of its own (started by `startReceiverProcess` in
 * load.mjs): answers every request 200 `ok` and tells its parent, over the IPC channel, its port,
 * the first request it got (headers and body) and its request count every 20 ms. With the argument
 * `presend` it is a pre-send receiver instead: each request is answered `{"valid":true}` about 1 ms
 * after its body arrived (a timer of 1 ms), as a quick moderation service would.
 */
import http from 'node:http';

const PRESEND = process.argv[2] === 'presend';
let count = 0;
let reported = -1;
let first = false;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    count++;
    if (!first) {
      first = true;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)));
      process.send({ first: { headers, body: Buffer.concat(chunks).toString() } });
    }
    if (PRESEND) {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"valid":true}');
      }, 1);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
setInterval(() => {
  if (count !== reported) process.send({ count: (reported = count) });
}, 20);
process.on('message', (message) => {
  if (message === 'reset') count = 0;
});
process.on('disconnect', () => process.exit(0));

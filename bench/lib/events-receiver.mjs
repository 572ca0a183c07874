/**
 * The callback receiver of `BENCH_EVENTS=1` (bench:ingest), in a process of its own so that it
 * shares no event loop with Parley or the load generator. It checks no signature: it answers 200
 * and notes, per push, its arrival time (ms since the epoch, fractional) and what the bench needs
 * to find the action that caused it:
 *   an event: ['e', event, conversation_id, to, timestamp, agent nickname or null, arrival]
 *   a reply:  ['r', ext.msg_id, to, arrival]
 * The parent asks with 'dump' and gets `{ records }` (those noted since the last dump).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

let records = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const arrival = performance.timeOrigin + performance.now();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      if (typeof body.event === 'string') {
        records.push(['e', body.event, body.conversation_id, body.to, body.timestamp, body.agent?.user_nickname ?? null, arrival]);
      } else {
        records.push(['r', body.ext?.msg_id ?? null, body.to, arrival]);
      }
    } catch {
      records.push(['x', arrival]);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message !== 'dump') return;
  process.send({ records });
  records = [];
});
process.on('disconnect', () => process.exit(0));

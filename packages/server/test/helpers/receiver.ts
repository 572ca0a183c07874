/**
 * A scriptable HTTP receiver on 127.0.0.1 and a free port, standing in for a customer's server
 * or an application server. It records every request (method, path, headers, exact raw body)
 * and answers from a script a test can change at any time:
 *   receiver.respond({ status: 503, headers: { 'retry-after': '7' } })   // every later request
 *   receiver.respondOnce({ status: 500 })                                // the next request only
 *   receiver.respond((req) => ({ status: req.path === '/a' ? 200 : 404 }))
 * `waitFor(n)` resolves once n requests have arrived (tests wait on state, never on time).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  /** rawBody as UTF-8 text. */
  body: string;
  receivedAt: number;
}

export interface ReceiverAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long (real ms) before answering: for timeout tests. */
  delayMs?: number;
  /** Drop the connection without an answer. */
  destroy?: boolean;
}

export type ReceiverScript = ReceiverAnswer | ((request: ReceivedRequest) => ReceiverAnswer);

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** Answer every later request this way (default: 200 "ok"). */
  respond(script: ReceiverScript): void;
  /** Answer the next request this way, then fall back to the standing script. */
  respondOnce(script: ReceiverScript): void;
  /** Resolves with the requests once at least `count` arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  clear(): void;
  close(): Promise<void>;
}

export async function startReceiver(options: { port?: number } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let standing: ReceiverScript = { status: 200, body: 'ok' };
  const once: ReceiverScript[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const received: ReceivedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        rawBody,
        body: rawBody.toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(received);
      for (const w of [...waiters]) {
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      const script = once.shift() ?? standing;
      const answer = typeof script === 'function' ? script(received) : script;
      const send = () => {
        if (answer.destroy) return void req.socket.destroy();
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond(script) {
      standing = script;
    },
    respondOnce(script) {
      once.push(script);
    },
    waitFor(count, timeoutMs = 15_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${count} requests`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests.slice());
          },
        });
      });
    },
    clear() {
      requests.length = 0;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A scriptable HTTP receiver on 127.0.0.1, port 0, for callback tests. It records every request
 * (headers, exact body, arrival time) and answers with whatever `respond` says at that moment,
 * so a test can switch it from healthy to failing to hung mid-run.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Answer = { status: number; body?: string } | 'hang' | 'reset';

export class CallbackReceiver {
  readonly requests: ReceivedRequest[] = [];
  respond: (req: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(path = '/callback'): Promise<CallbackReceiver> {
    // The handler needs the receiver, which needs the listening server: resolve it late.
    const ref: { receiver?: CallbackReceiver } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = ref.receiver as CallbackReceiver;
        const entry: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        r.requests.push(entry);
        const answer = r.respond(entry, r.requests.length - 1);
        if (answer === 'hang') return;
        if (answer === 'reset') {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(answer.body ?? '');
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new CallbackReceiver(server, `http://127.0.0.1:${port}${path}`);
    ref.receiver = receiver;
    server.on('connection', (s: Socket) => {
      receiver.sockets.add(s);
      s.on('close', () => receiver.sockets.delete(s));
    });
    return receiver;
  }

  /** Parsed JSON bodies received so far. */
  bodies<T = Record<string, unknown>>(): T[] {
    return this.requests.map((r) => JSON.parse(r.body) as T);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

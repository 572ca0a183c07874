/**
 * IM test helpers: create an app with the system admin, get tokens, register users, and real `ws`
 * socket clients that record frames and let a test wait on them.
 */
import type { FastifyInstance } from 'fastify';
import type { ImServerFrame } from '@parley/protocol';
import WebSocket from 'ws';
import { ADMIN, call, login } from './app.js';

export interface ImAppHandle {
  org: string;
  name: string;
  base: string;
  clientId: string;
  clientSecret: string;
  adminToken: string;
}

export async function createImApp(app: FastifyInstance, org = 'acme', name = 'shop'): Promise<ImAppHandle> {
  const root = await login(app, ADMIN.username, ADMIN.password);
  const created = await call(app, root, 'POST', '/management/apps', { org_name: org, app_name: name });
  if (created.status !== 200) throw new Error(`create app failed: ${created.status} ${JSON.stringify(created.body)}`);
  const { client_id: clientId, client_secret: clientSecret } = created.body.data as { client_id: string; client_secret: string };
  const token = await call(app, undefined, 'POST', `/${org}/${name}/token`, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  if (token.status !== 200) throw new Error(`app token failed: ${token.status} ${JSON.stringify(token.body)}`);
  return { org, name, base: `/${org}/${name}`, clientId, clientSecret, adminToken: token.body.access_token as string };
}

export const PASSWORD = 'pw-123456';

export async function createUsers(app: FastifyInstance, im: ImAppHandle, ...names: string[]): Promise<void> {
  const res = await call(app, im.adminToken, 'POST', `${im.base}/users`, names.map((username) => ({ username, password: PASSWORD })));
  if (res.status !== 200) throw new Error(`create users failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function userToken(app: FastifyInstance, im: ImAppHandle, username: string): Promise<string> {
  const res = await call(app, undefined, 'POST', `${im.base}/token`, { grant_type: 'password', username, password: PASSWORD });
  if (res.status !== 200) throw new Error(`user token failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

/** Resolves when `predicate` holds; polls state, never sleeps a fixed time. */
export async function waitFor<T>(probe: () => T | Promise<T>, predicate: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (predicate(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export class SocketClient {
  readonly frames: ImServerFrame[] = [];
  closed = false;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.frames.push(JSON.parse(String(data)) as ImServerFrame));
    ws.on('close', () => {
      this.closed = true;
    });
  }

  /** `resource`: the device name the socket gives itself (the `resource` query parameter). */
  static connect(baseUrl: string, path: string, token: string, resource?: string): Promise<SocketClient> {
    const named = resource === undefined ? '' : `&resource=${encodeURIComponent(resource)}`;
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}/ws?access_token=${encodeURIComponent(token)}${named}`);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new SocketClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`socket refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  of<K extends ImServerFrame['op']>(op: K): Array<Extract<ImServerFrame, { op: K }>> {
    return this.frames.filter((f): f is Extract<ImServerFrame, { op: K }> => f.op === op);
  }

  async waitFrames<K extends ImServerFrame['op']>(op: K, count: number, timeoutMs = 5000): Promise<Array<Extract<ImServerFrame, { op: K }>>> {
    return waitFor(() => this.of(op), (list) => list.length >= count, timeoutMs);
  }

  /** Waits for a message frame whose first body has text `msg`. */
  async waitText(msg: string, timeoutMs = 5000): Promise<Extract<ImServerFrame, { op: 'message' }>> {
    const found = await waitFor(() => this.of('message').find((f) => f.payload.bodies[0]?.msg === msg), (f) => f !== undefined, timeoutMs);
    return found as Extract<ImServerFrame, { op: 'message' }>;
  }

  /** Sends a frame with `id` and waits for its ack or error. */
  async request(frame: Record<string, unknown> & { id: string }): Promise<ImServerFrame> {
    this.send(frame);
    const found = await waitFor(
      () => this.frames.find((f) => (f.op === 'ack' || f.op === 'error') && f.id === frame.id),
      (f) => f !== undefined,
    );
    return found as ImServerFrame;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

/** Listens on 127.0.0.1, port 0; returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * msync test helpers: a Parley listening on loopback with an IM app and users, SDK clients that
 * are closed after the test, and a raw msync client (our own codec, the client side) for what the
 * SDK never sends: bad frames, a chosen heartbeat moment.
 */
import WebSocket from 'ws';
import { clientCodec, decodeFrame, type MsyncFrame } from '../../src/modules/im/msync/codec.js';
import { Command, Namespace } from '../../src/modules/im/msync/schema.js';
import type { Engine } from '../../src/storage/index.js';
import { call, createTestApp, type TestApp } from './app.js';
import { CallbackReceiver } from './callback-receiver.js';
import { SdkClient, type SdkOptions, type SdkPackage } from './easemob-sdk.js';
import { createImApp, createUsers, listen, PASSWORD, userToken, waitFor, type ImAppHandle } from './im.js';

export { PASSWORD };

export interface MsyncWorld {
  t: TestApp;
  im: ImAppHandle;
  url: string;
  appKey: string;
  appId: string;
  api: (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) => ReturnType<typeof call>;
  sdk: (options?: Partial<SdkOptions>) => SdkClient;
  /** An SDK client logged in by password, with a fresh resource; `sdkPackage` overrides the world's. */
  login: (user: string, sdkPackage?: SdkPackage) => Promise<SdkClient>;
  token: (user: string) => Promise<string>;
  online: (user: string) => Promise<boolean>;
  close(): Promise<void>;
}

/** `logs` receives every log line, at trace level; `sdkPackage` picks the SDK of `sdk()` and `login()`. */
export async function msyncWorld(
  engine: Engine,
  users: string[],
  options: { logs?: (line: string) => void; env?: Record<string, string>; sdkPackage?: SdkPackage } = {},
): Promise<MsyncWorld> {
  const logs = options.logs;
  const t = await createTestApp(engine, {
    env: { ...(logs ? { LOG_LEVEL: 'trace' } : {}), ...options.env },
    ...(logs ? { deps: { logStream: { write: (line: string) => void logs(line) } } } : {}),
  });
  const im = await createImApp(t.app);
  const url = await listen(t.app);
  await createUsers(t.app, im, ...users);
  const appId = (await t.app.parley.im.apps.requireApp(im.org, im.name)).id;
  const clients: SdkClient[] = [];
  const appKey = `${im.org}#${im.name}`;
  const world: MsyncWorld = {
    t,
    im,
    url,
    appKey,
    appId,
    api: (method, path, payload) => call(t.app, im.adminToken, method, `${im.base}${path}`, payload),
    sdk: (clientOptions = {}) => {
      const client = new SdkClient({ baseUrl: url, appKey, randomDevice: true, sdkPackage: options.sdkPackage, ...clientOptions });
      clients.push(client);
      return client;
    },
    login: async (user, sdkPackage) => {
      const client = world.sdk(sdkPackage ? { sdkPackage } : {});
      await client.open(user, { pwd: PASSWORD });
      return client;
    },
    token: (user) => userToken(t.app, im, user),
    online: async (user) => (await t.app.parley.im.presence.onlineAmong(appId, [user])).has(user),
    close: async () => {
      for (const client of clients) client.close();
      await t.close();
    },
  };
  return world;
}

/** A bare msync client: sends chosen frames, records the decoded answers and the close. */
export class RawMsync {
  readonly frames: MsyncFrame[] = [];
  closed: { code: number; reason: string } | undefined;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      try {
        this.frames.push(decodeFrame(new Uint8Array(data)));
      } catch {
        // recorded as nothing
      }
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
    ws.on('error', () => undefined);
  }

  /** `headers`: e.g. X-Forwarded-For, to appear as another client behind a trusted proxy. */
  static connect(baseUrl: string, path = '/ws', headers: Record<string, string> = {}): Promise<RawMsync> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}`, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawMsync(ws)));
      ws.once('unexpected-response', (req, res) => {
        req.destroy();
        reject(new Error(`refused: ${res.statusCode}`));
      });
    });
  }

  send(bytes: Uint8Array | Buffer): void {
    this.ws.send(bytes);
  }

  provision(appKey: string, user: string, token: string, resource = 'raw_1'): void {
    this.send(clientCodec.frame(Command.PROVISION, { guid: { appKey, name: user }, auth: `$t$${token}` }, clientCodec.provision({ osType: 16, resource })));
  }

  unread(): void {
    this.send(clientCodec.frame(Command.UNREAD, {}));
  }

  of(command: number): MsyncFrame[] {
    return this.frames.filter((f) => f.command === command);
  }
}

type QueueJid = { appKey?: string; name?: string; domain?: string };
const queueName = (q: QueueJid | undefined) => `${q?.domain ?? ''}/${q?.name ?? ''}`;

/**
 * A bare client that logs in and pulls as the SDK does: UNREAD, then each queue its answer lists
 * and each queue a NOTICE names (a NOTICE for a queue already being pulled is dropped), one queue
 * at a time, each with the cursor until `isLast`. `pull: false` only logs in and asks UNREAD (a
 * client that never pulls). Every message id received is recorded, in order (notices are not).
 */
export class PullingClient {
  readonly received: string[] = [];
  private readonly queues: QueueJid[] = [];
  private pulling = false;

  private constructor(
    readonly raw: RawMsync,
    private readonly pull: boolean,
  ) {
    raw.ws.on('message', (data: Buffer) => this.onFrame(decodeFrame(new Uint8Array(data))));
  }

  static async login(w: MsyncWorld, user: string, options: { pull?: boolean; resource?: string } = {}): Promise<PullingClient> {
    const raw = await RawMsync.connect(w.url);
    const client = new PullingClient(raw, options.pull ?? true);
    raw.provision(w.appKey, user, await w.token(user), options.resource ?? `pull_${user}`);
    await waitFor(() => raw.of(Command.PROVISION).length, (n) => n === 1);
    raw.unread();
    await waitFor(() => raw.of(Command.UNREAD).length, (n) => n === 1);
    return client;
  }

  /** Distinct ids received. */
  distinct(): number {
    return new Set(this.received).size;
  }

  close(): void {
    this.raw.ws.close();
  }

  /** One pull of `queue` made by hand (a client created with `pull: false`), `key` acknowledging the last batch; its answer. */
  async pullOnce(queue: QueueJid, key?: string): Promise<ReturnType<typeof clientCodec.decodeSyncDown>> {
    const seen = this.raw.of(Command.SYNC).length;
    this.sendPull(queue, key);
    await waitFor(() => this.raw.of(Command.SYNC).length, (n) => n > seen);
    return clientCodec.decodeSyncDown(this.raw.of(Command.SYNC)[seen]?.payload);
  }

  private onFrame(frame: MsyncFrame): void {
    if (!this.pull) return;
    if (frame.command === Command.UNREAD) {
      for (const { queue } of clientCodec.decodeUnread(frame.payload).unread ?? []) this.want(queue);
    } else if (frame.command === Command.NOTICE) {
      this.want(clientCodec.decodeNotice(frame.payload).queue);
    } else if (frame.command === Command.SYNC) {
      const down = clientCodec.decodeSyncDown(frame.payload);
      if (down.metaId) return; // the answer to a send
      // Messages only: a group or contact notice kept for the user while offline comes in the same pulls.
      for (const meta of down.metas ?? []) if (meta.ns === Namespace.CHAT) this.received.push(String(meta.id));
      if (down.isLast) {
        this.queues.shift();
        this.pulling = false;
        this.next();
      } else {
        this.sendPull(this.queues[0], down.nextKey);
      }
    }
  }

  private want(queue: QueueJid | undefined): void {
    if (!queue || this.queues.some((q) => queueName(q) === queueName(queue))) return;
    this.queues.push(queue);
    this.next();
  }

  private next(): void {
    if (this.pulling || this.queues.length === 0) return;
    this.pulling = true;
    this.sendPull(this.queues[0], undefined);
  }

  private sendPull(queue: QueueJid | undefined, key: string | undefined): void {
    this.raw.send(clientCodec.frame(Command.SYNC, {}, clientCodec.syncUp({ queue, ...(key ? { key } : {}) })));
  }
}

/**
 * A receiver of the world's group and chat-room operations: the app's callback service on and one
 * post-send rule of `group_op_event` to the receiver; answers the receiver and the rule's secret.
 */
export async function groupOpReceiver(w: MsyncWorld, name = 'groups'): Promise<{ receiver: CallbackReceiver; secret: string }> {
  const receiver = await CallbackReceiver.start();
  await w.api('PUT', '/callbacks/service', { enabled: true });
  const rule = await w.api('POST', '/callbacks/rules', { name, url: receiver.url, event_types: ['group_op_event'] });
  if (rule.status !== 200) throw new Error(`the group_op_event rule was refused: ${JSON.stringify(rule.body)}`);
  return { receiver, secret: rule.body.data.secret as string };
}

/**
 * The real Easemob Web SDK (`easemob-websdk`, pinned), or the same code under Agora's name
 * (`agora-chat`, pinned; `sdkPackage`), run headless in Node against a Parley under test. A small shim provides the browser globals it reads (self, window, document, navigator,
 * localStorage, WebSocket from `ws`, XMLHttpRequest over fetch). Every request the SDK makes, by
 * XHR, fetch or WebSocket, is checked: one to a host other than the server under test is BLOCKED
 * (refused at once) and recorded, and `assertNoForeignRequests()` fails the test.
 */
import { createRequire } from 'node:module';
import WebSocket from 'ws';

const require = createRequire(import.meta.url);

/** Requests the SDK tried to make elsewhere than the server under test. */
export const foreignRequests: string[] = [];
/** Hosts of the servers under test (several instances in the multi-instance suite). */
const allowedHosts = new Set<string>();

function allowed(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    host = '';
  }
  if (allowedHosts.has(host)) return true;
  foreignRequests.push(url);
  return false;
}

/** Takes the recorded foreign requests, for a test that provokes them on purpose. */
export function takeForeignRequests(): string[] {
  return foreignRequests.splice(0);
}

export function assertNoForeignRequests(): void {
  if (foreignRequests.length > 0) throw new Error(`the SDK tried to reach hosts other than the server under test: ${foreignRequests.join(', ')}`);
}

/** XMLHttpRequest as the SDK uses it, over fetch. */
class NodeXhr {
  readyState = 0;
  status = 0;
  responseText = '';
  response: unknown = '';
  responseType = '';
  timeout = 0;
  withCredentials = false;
  upload = { addEventListener: () => undefined };
  onreadystatechange: (() => void) | null = null;
  onload: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  onabort: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  private method = 'GET';
  private url = '';
  private headers: Record<string, string> = {};
  private listeners: Record<string, Array<(e: unknown) => void>> = {};

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
    this.readyState = 1;
  }
  setRequestHeader(name: string, value: string): void {
    this.headers[name] = value;
  }
  overrideMimeType(): void {}
  getAllResponseHeaders(): string {
    return '';
  }
  getResponseHeader(): null {
    return null;
  }
  addEventListener(event: string, listener: (e: unknown) => void): void {
    (this.listeners[event] ??= []).push(listener);
  }
  abort(): void {
    this.onabort?.();
  }
  private emit(event: string): void {
    for (const listener of this.listeners[event] ?? []) listener({ target: this });
  }
  send(body?: unknown): void {
    if (!allowed(this.url)) {
      this.readyState = 4;
      this.status = 0;
      queueMicrotask(() => {
        this.onreadystatechange?.();
        this.onerror?.({ target: this });
        this.emit('error');
      });
      return;
    }
    void fetch(this.url, { method: this.method, headers: this.headers, body: body as string | undefined })
      .then(async (res) => {
        this.status = res.status;
        if (this.responseType === 'blob') {
          // A download (the SDK's downloadGroupSharedFile): the bytes as they came.
          this.response = new Blob([await res.arrayBuffer()], { type: res.headers.get('content-type') ?? '' });
        } else {
          this.responseText = await res.text();
          this.response = this.responseText;
        }
        this.readyState = 4;
        this.onreadystatechange?.();
        this.onload?.({ target: this });
        this.emit('load');
      })
      .catch(() => {
        this.readyState = 4;
        this.onreadystatechange?.();
        this.onerror?.({ target: this });
        this.emit('error');
      });
  }
}

const bytesOf = (data: unknown): Uint8Array =>
  data instanceof ArrayBuffer ? new Uint8Array(data) : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(String(data));

/**
 * The SDK's WebSocket. It records the frames the SDK sends and receives and the close code, for
 * tests to observe. `ws` throws on an 'error' event without a listener (a refused upgrade); a
 * browser does not, so one is always attached.
 */
export class NodeWebSocket extends WebSocket {
  readonly sentFrames: Uint8Array[] = [];
  readonly receivedFrames: Uint8Array[] = [];
  closeCode: number | undefined;

  constructor(url: string, protocols?: string | string[]) {
    if (!allowed(url)) {
      super('ws://127.0.0.1:1/blocked');
    } else {
      super(url, protocols);
    }
    this.on('error', () => undefined);
    this.on('message', (data: Buffer) => this.receivedFrames.push(new Uint8Array(data)));
    this.on('close', (code: number) => {
      this.closeCode = code;
    });
  }

  override send(...args: unknown[]): void {
    this.sentFrames.push(bytesOf(args[0]));
    (super.send as (...a: unknown[]) => void).apply(this, args);
  }
}

class MemoryStorage {
  private readonly map = new Map<string, string>();
  getItem(key: string): string | null {
    return this.map.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.map.set(key, String(value));
  }
  removeItem(key: string): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  key(i: number): string | null {
    return [...this.map.keys()][i] ?? null;
  }
  get length(): number {
    return this.map.size;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** The SDK packages under test: Easemob's, and the same code under Agora's name (no `version=v3` query). */
export type SdkPackage = 'easemob-websdk' | 'agora-chat';
export const SDK_PACKAGES: readonly SdkPackage[] = ['easemob-websdk', 'agora-chat'];
const loaded = new Map<SdkPackage, Any>();
let shimmed = false;

/** Loads a package once, with the shim in place. */
function loadSdk(name: SdkPackage = 'easemob-websdk'): Any {
  const done = loaded.get(name);
  if (done) return done;
  installShim();
  const sdk = require(name);
  (sdk.default?.logger ?? sdk.logger)?.disableAll?.();
  loaded.set(name, sdk);
  return sdk;
}

/** The browser globals the SDKs read, installed once for both. */
function installShim(): void {
  if (shimmed) return;
  shimmed = true;
  const g = globalThis as Any;
  const realFetch = g.fetch.bind(globalThis);
  g.fetch = (input: Any, init?: Any) => {
    const url = typeof input === 'string' ? input : String(input?.url ?? input);
    if (!allowed(url)) return Promise.reject(new TypeError(`blocked: ${url}`));
    return realFetch(input, init);
  };
  const noop = () => undefined;
  const documentShim = { addEventListener: noop, removeEventListener: noop, hidden: false, cookie: '', createElement: () => ({ style: {}, setAttribute: noop }), getElementById: () => null, body: {} };
  g.self = g;
  g.window = g;
  g.document = documentShim;
  g.localStorage = new MemoryStorage();
  g.XMLHttpRequest = NodeXhr;
  g.WebSocket = NodeWebSocket;
  if (!g.navigator) g.navigator = { userAgent: 'node', onLine: true };
  g.addEventListener = noop;
  g.removeEventListener = noop;
  g.location = { protocol: 'http:', host: 'localhost', hostname: 'localhost', href: 'http://localhost/' };
}

export interface SdkOptions {
  /** `http://127.0.0.1:PORT` of the server under test. */
  baseUrl: string;
  appKey: string;
  /** A fresh resource per login instead of the one kept in localStorage. */
  randomDevice?: boolean;
  /** The SDK's `deviceId`: with `randomDevice`, the resource is the same at every login (`webim_<platform>_<deviceId>`), as one device's. */
  deviceId?: string;
  /** The gateway path: `/ws` (the default) or `/websocket`. */
  path?: '/ws' | '/websocket';
  /** The SDK's `delivery` option: it acknowledges every one-to-one message received (DELIVER_ACK). */
  delivery?: boolean;
  /** Which SDK package (default `easemob-websdk`). */
  sdkPackage?: SdkPackage;
  /** The SDK's own host lookup (default off, as contract §6.1 configures it): on, it asks Easemob's or Agora's DNS. */
  isHttpDNS?: boolean;
}

/** One SDK connection with recorded events. */
export class SdkClient {
  readonly conn: Any;
  readonly events: Array<{ event: string; data: Any }> = [];
  readonly sdk: Any;

  constructor(options: SdkOptions) {
    this.sdk = loadSdk(options.sdkPackage);
    allowedHosts.add(new URL(options.baseUrl).host);
    const Connection = this.sdk.default?.connection ?? this.sdk.connection;
    this.conn = new Connection({
      appKey: options.appKey,
      isHttpDNS: options.isHttpDNS ?? false,
      url: `${options.baseUrl.replace(/^http/, 'ws')}${options.path ?? '/ws'}`,
      apiUrl: options.baseUrl,
      isFixedDeviceId: !options.randomDevice,
      ...(options.deviceId ? { deviceId: options.deviceId } : {}),
      delivery: options.delivery ?? false,
    });
    const record = (event: string) => (data: Any) => this.events.push({ event, data });
    this.conn.addEventHandler('test', {
      onConnected: record('connected'),
      onDisconnected: record('disconnected'),
      onTextMessage: record('text'),
      onImageMessage: record('img'),
      onAudioMessage: record('audio'),
      onVideoMessage: record('video'),
      onFileMessage: record('file'),
      onLocationMessage: record('loc'),
      onCmdMessage: record('cmd'),
      onCustomMessage: record('custom'),
      onOfflineMessageSyncStart: record('syncStart'),
      onOfflineMessageSyncFinish: record('syncFinish'),
      onError: record('error'),
      onTokenExpired: record('tokenExpired'),
      onTokenWillExpire: record('tokenWillExpire'),
      onReadMessage: record('read'),
      onDeliveredMessage: record('delivered'),
      onChannelMessage: record('channel'),
      onRecallMessage: record('recall'),
      onModifiedMessage: record('modified'),
      onContactInvited: record('contactInvited'),
      onContactAgreed: record('contactAgreed'),
      onContactRefuse: record('contactRefuse'),
      onContactDeleted: record('contactDeleted'),
      onContactAdded: record('contactAdded'),
      onGroupEvent: record('groupEvent'),
      onChatroomEvent: record('chatroomEvent'),
    });
  }

  of(event: string): Any[] {
    return this.events.filter((e) => e.event === event).map((e) => e.data);
  }

  /** Received messages, in order (every body type). */
  messages(): Any[] {
    return this.events.filter((e) => ['text', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'].includes(e.event)).map((e) => e.data);
  }

  open(user: string, credentials: { pwd: string } | { accessToken: string }): Promise<Any> {
    return this.conn.open({ user, ...credentials });
  }

  /** The SDK's current socket (a new one after each reconnect). */
  socket(): NodeWebSocket {
    return this.conn.sock as NodeWebSocket;
  }

  /** Builds and sends a message with the SDK's own `message.create`. */
  send(options: Record<string, unknown>): Promise<{ localMsgId: string; serverMsgId: string }> {
    const message = this.sdk.default?.message ?? this.sdk.message;
    return this.conn.send(message.create(options));
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }
}

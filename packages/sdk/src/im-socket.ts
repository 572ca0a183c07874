/**
 * IM socket client for SDK users (contract 4.3): connect with a user token, send one-to-one,
 * group and chat-room messages and wait for their ack, receive messages, join and leave chat
 * rooms, and reconnect with exponential back-off when the connection drops.
 *
 *   const socket = new ImSocket({ baseUrl: 'http://127.0.0.1:8080', org: 'demo', app: 'demo', token });
 *   socket.on('message', (m) => console.log(m.from, m.payload.bodies));
 *   await socket.connect();
 *   const { msgId } = await socket.send({ chatType: 'chat', to: 'bob', bodies: [{ type: 'txt', msg: 'hi' }] });
 *
 * Sends are never replayed after a reconnect (that could duplicate a message the server already
 * accepted): a send whose ack did not arrive rejects with `disconnected`, and the caller decides.
 * Messages stored while the user was offline arrive on (re)connect, flagged `offline: true`.
 */
import { EventEmitter } from 'node:events';
import type { ImChatType, ImMessageBody, ImMessageFrame, ImServerFrame } from '@parley/protocol';
import WebSocket from 'ws';

/**
 * Close code of a socket the server closed because the same user opened one socket too many
 * (reason "logged in on another device", Easemob's 206). The client does not reconnect after it.
 * Other closes, among them 1013 (a slow consumer dropped, or the app's socket cap), are followed
 * by a reconnect with back-off.
 */
export const CLOSE_REPLACED = 4206;

export interface BackoffOptions {
  /** First delay, ms (default 500). */
  initialDelayMs?: number;
  /** Largest delay, ms (default 30 000). */
  maxDelayMs?: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** ± share of random spread (default 0.2). */
  jitter?: number;
}

export interface ImSocketOptions {
  /** Parley's base URL, e.g. `http://127.0.0.1:8080` (ws/wss is derived). */
  baseUrl: string;
  org: string;
  app: string;
  /** A user token, or a function that returns a fresh one for every (re)connect. */
  token: string | (() => string | Promise<string>);
  /** false: do not reconnect. Default: reconnect with back-off. */
  reconnect?: BackoffOptions | false;
  /** How long a send or join waits for its ack, ms (default 10 000). */
  ackTimeoutMs?: number;
}

export interface SendInput {
  chatType: ImChatType;
  /** User name, or group / chat-room id. */
  to: string;
  bodies: ImMessageBody[];
  ext?: Record<string, unknown>;
}

export class ImSocketError extends Error {
  override name = 'ImSocketError';
  constructor(
    readonly code: string,
    description: string,
  ) {
    super(description);
  }
}

/** Delay before reconnect attempt `attempt` (1-based). Pure: `random` is injectable for tests. */
export function backoffDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  const jitter = options.jitter ?? 0.2;
  const base = Math.min(max, initial * factor ** Math.max(0, attempt - 1));
  const spread = base * jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(Math.min(max, base + spread)));
}

interface Pending {
  resolve(frame: ImServerFrame): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface ImSocketEvents {
  message: [ImMessageFrame];
  open: [];
  close: [{ code: number; reason: string }];
  reconnecting: [{ attempt: number; delayMs: number }];
  error: [Error];
}

export class ImSocket extends EventEmitter<ImSocketEvents> {
  private ws: WebSocket | undefined;
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private attempt = 0;
  private closedByUser = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ImSocketOptions) {
    super();
  }

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** Opens the socket; rejects if the first attempt fails (e.g. 401 for a bad token). */
  async connect(): Promise<void> {
    this.closedByUser = false;
    await this.open();
  }

  private async open(): Promise<void> {
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    if (this.closedByUser) return;
    const base = this.options.baseUrl.replace(/^http/, 'ws').replace(/\/$/, '');
    const url = `${base}/${encodeURIComponent(this.options.org)}/${encodeURIComponent(this.options.app)}/ws?access_token=${encodeURIComponent(token)}`;
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_request, response) => {
        ws.terminate();
        reject(new ImSocketError(response.statusCode === 401 ? 'unauthorized' : 'connect_failed', `socket refused with HTTP ${response.statusCode}`));
      });
      ws.once('error', (error) => reject(error));
    });
    if (this.closedByUser) {
      // close() was called while this attempt was under way.
      ws.close(1000, 'client closed');
      return;
    }
    this.ws = ws;
    this.attempt = 0;
    ws.on('message', (data) => this.onFrame(String(data)));
    ws.on('error', (error) => this.reportError(error));
    ws.on('close', (code, reason) => this.onClose(ws, code, reason.toString()));
    this.emit('open');
  }

  private onFrame(text: string): void {
    let frame: ImServerFrame;
    try {
      frame = JSON.parse(text) as ImServerFrame;
    } catch {
      return;
    }
    if (frame.op === 'message') {
      this.emit('message', frame);
      return;
    }
    if ((frame.op === 'ack' || frame.op === 'error' || frame.op === 'pong') && frame.id !== undefined) {
      const waiting = this.pending.get(frame.id);
      if (!waiting) return;
      this.pending.delete(frame.id);
      clearTimeout(waiting.timer);
      if (frame.op === 'error') waiting.reject(new ImSocketError(frame.error, frame.error_description));
      else waiting.resolve(frame);
    }
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new ImSocketError('disconnected', 'the socket closed before the server answered'));
      this.pending.delete(id);
    }
    this.emit('close', { code, reason });
    // Replaced by a newer socket of the same user: reconnecting would only close that one in turn.
    if (code === CLOSE_REPLACED) return;
    if (!this.closedByUser && this.options.reconnect !== false) this.scheduleReconnect();
  }

  /** An EventEmitter throws an 'error' nobody listens to; a background reconnect must not. */
  private reportError(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  private scheduleReconnect(): void {
    this.attempt += 1;
    const delayMs = backoffDelay(this.attempt, this.options.reconnect || {});
    this.emit('reconnecting', { attempt: this.attempt, delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closedByUser) return;
      this.open().catch((error: unknown) => {
        this.reportError(error instanceof Error ? error : new Error(String(error)));
        if (!this.closedByUser) this.scheduleReconnect();
      });
    }, delayMs);
  }

  private request(frame: Record<string, unknown>): Promise<ImServerFrame> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new ImSocketError('disconnected', 'the socket is not connected'));
    const id = `c${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ImSocketError('timeout', `no answer within ${this.options.ackTimeoutMs ?? 10_000} ms`));
      }, this.options.ackTimeoutMs ?? 10_000);
      this.pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ ...frame, id }));
    });
  }

  /** Sends a message; resolves with the server's msg_id once it was accepted (durably stored). */
  async send(input: SendInput): Promise<{ msgId: string; timestamp: number }> {
    const ack = await this.request({ op: 'send', chat_type: input.chatType, to: input.to, bodies: input.bodies, ext: input.ext ?? {} });
    if (ack.op !== 'ack' || ack.msg_id === undefined) throw new ImSocketError('protocol_error', 'unexpected answer to send');
    return { msgId: ack.msg_id, timestamp: ack.timestamp };
  }

  /** Joins a chat room: its messages reach this user while connected. */
  async join(room: string): Promise<void> {
    await this.request({ op: 'join', room });
  }

  async leave(room: string): Promise<void> {
    await this.request({ op: 'leave', room });
  }

  /** Closes for good: no reconnect. */
  close(): Promise<void> {
    this.closedByUser = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'client closed');
    });
  }
}

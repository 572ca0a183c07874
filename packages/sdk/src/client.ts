/**
 * A small client for the send-message API, on the global fetch of Node 18+ (or one passed in).
 */
import { validateCustomerMessage, type CustomerMessage, type RatingRequest, type RatingView, type ReceiptStatus, type ReceiptsResult, type SendMessageResult } from '@parley/protocol';
import { signSendMessageRequest } from './sign.js';

export interface ChannelClientOptions {
  /** Parley's base URL, e.g. `https://parley.example.com`. */
  baseUrl: string;
  tenantId: number;
  channelId: number;
  clientId: string;
  clientSecret: string;
  /** How long a signature stays valid (default 60 s). 0 signs requests that never expire. */
  signatureTtlMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

/** A refusal by Parley, with the stable error code of its envelope. */
export class ParleyApiError extends Error {
  override name = 'ParleyApiError';
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export class ChannelClient {
  private readonly fetchImpl: typeof fetch;
  /** The association's path; each call adds its own (`/messages`, `/receipts`, `/typing`, `/ratings`). */
  private readonly base: string;
  readonly path: string;

  constructor(private readonly options: ChannelClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
    this.base = `/api/tenants/${options.tenantId}/rest/channels/${options.channelId}`;
    this.path = `${this.base}/messages`;
  }

  /** Reports agent replies (their `ext.msg_id`) `delivered` to, or `read` by, the customer `to`. */
  sendReceipts(to: string, msgIds: string[], status: ReceiptStatus): Promise<ReceiptsResult> {
    return this.signedPost(`${this.base}/receipts`, JSON.stringify({ to, msg_ids: msgIds, status }));
  }

  /** Tells the agent the customer `from` is typing in their open conversation. */
  sendTyping(from: string): Promise<{ conversation_id: number }> {
    return this.signedPost(`${this.base}/typing`, JSON.stringify({ from }));
  }

  /** Sends the customer's rating (1-5) of a closed conversation after its `csat_invitation`. */
  rate(rating: RatingRequest): Promise<RatingView> {
    return this.signedPost(`${this.base}/ratings`, JSON.stringify(rating));
  }

  /** Sends one customer message; resolves with Parley's answer (msg_id, conversation_id, duplicate). */
  async sendMessage(message: Omit<CustomerMessage, 'origin_type' | 'timestamp'> & Partial<Pick<CustomerMessage, 'origin_type' | 'timestamp'>>): Promise<SendMessageResult> {
    const now = this.options.now ?? Date.now;
    const full = { ...message, origin_type: 'rest' as const, timestamp: message.timestamp ?? now() };
    const checked = validateCustomerMessage(full);
    if (!checked.ok) throw new ParleyApiError(400, 'invalid_message', `Invalid message: ${checked.detail}`);
    return this.signedPost(this.path, JSON.stringify(full));
  }

  /** Signs `body` for `path` as the send-message API wants it, posts it, and answers the entity. */
  private async signedPost<T>(path: string, body: string): Promise<T> {
    const now = this.options.now ?? Date.now;
    const ttl = this.options.signatureTtlMs ?? 60_000;
    const headers = signSendMessageRequest({
      clientId: this.options.clientId,
      clientSecret: this.options.clientSecret,
      path,
      body,
      expires: ttl > 0 ? now() + ttl : -1,
    });
    const res = await this.fetchImpl(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`, { method: 'POST', headers: { ...headers }, body });
    const text = await res.text();
    let json: { entity?: T; errorCode?: string; errorDescription?: string; requestId?: string } = {};
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON: reported below */
    }
    if (!res.ok || !json.entity) {
      throw new ParleyApiError(res.status, json.errorCode ?? 'http_error', json.errorDescription ?? `HTTP ${res.status}: ${text.slice(0, 200)}`, json.requestId);
    }
    return json.entity;
  }
}

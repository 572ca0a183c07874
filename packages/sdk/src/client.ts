/**
 * A small client for the send-message API, on the global fetch of Node 18+ (or one passed in).
 */
import { validateCustomerMessage, type CustomerMessage, type SendMessageResult } from '@parley/protocol';
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
  readonly path: string;

  constructor(private readonly options: ChannelClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
    this.path = `/api/tenants/${options.tenantId}/rest/channels/${options.channelId}/messages`;
  }

  /** Sends one customer message; resolves with Parley's answer (msg_id, conversation_id, duplicate). */
  async sendMessage(message: Omit<CustomerMessage, 'origin_type' | 'timestamp'> & Partial<Pick<CustomerMessage, 'origin_type' | 'timestamp'>>): Promise<SendMessageResult> {
    const now = this.options.now ?? Date.now;
    const full = { ...message, origin_type: 'rest' as const, timestamp: message.timestamp ?? now() };
    const checked = validateCustomerMessage(full);
    if (!checked.ok) throw new ParleyApiError(400, 'invalid_message', `Invalid message: ${checked.detail}`);
    const body = JSON.stringify(full);
    const ttl = this.options.signatureTtlMs ?? 60_000;
    const headers = signSendMessageRequest({
      clientId: this.options.clientId,
      clientSecret: this.options.clientSecret,
      path: this.path,
      body,
      expires: ttl > 0 ? now() + ttl : -1,
    });
    const res = await this.fetchImpl(`${this.options.baseUrl.replace(/\/+$/, '')}${this.path}`, { method: 'POST', headers: { ...headers }, body });
    const text = await res.text();
    let json: { entity?: SendMessageResult; errorCode?: string; errorDescription?: string; requestId?: string } = {};
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

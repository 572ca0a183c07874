/**
 * The one way Parley sends HTTP to customer-controlled addresses (reply pushes, post-send
 * callbacks): pooled undici clients, a per-attempt timeout, a cap on how much of a response is
 * read, and the contract-5 guard against internal addresses, checked again at send time.
 */
export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Per-attempt timeout covering connect, headers and the body read. */
  timeoutMs: number;
  /** Read at most this many bytes of the response body; the rest is discarded unread. */
  maxResponseBytes: number;
  /**
   * Whose request this is (`rule:<id>`, `association:<id>`): at most a set number of one key's
   * requests use connections of an origin's shared pool at once; the rest wait in the key's own
   * queue, so a hung receiver cannot take the connections another key needs (key-budget.ts).
   */
  budgetKey: string;
  /**
   * A callback record sent unsigned: the sender makes its body and headers (`security`, the body
   * MD5 and the Standard Webhooks headers, callbacks/signed-json.ts) where it sends it, on the
   * outbound thread when there is one, in place of `body` and `headers`.
   */
  signing?: OutboundSigning;
}

/** What signs a record at send time. The secret is never logged and never leaves the process. */
export interface OutboundSigning {
  /** The record's JSON, without `security` (added as its last member). */
  record: string;
  callId: string;
  /** The record's `timestamp` (ms), part of `security`. */
  timestamp: number;
  secret: string;
  /** The sending time (ms) the `webhook-timestamp` header gives, read from the caller's clock. */
  nowMs: number;
}

export type OutboundErrorKind = 'timeout' | 'connection' | 'blocked_address' | 'invalid_url';

export interface OutboundResult {
  /** HTTP status; undefined when no response arrived. */
  status?: number;
  /** Response body text, at most maxResponseBytes bytes of it. */
  body: string;
  /** True when the response body was longer than maxResponseBytes. */
  bodyTruncated: boolean;
  /** `Retry-After` in ms when the receiver sent one (seconds or HTTP date). */
  retryAfterMs?: number;
  /** Transport failure, when there was no response. */
  error?: { kind: OutboundErrorKind; message: string };
  latencyMs: number;
}

export interface OutboundSender {
  post(request: OutboundRequest): Promise<OutboundResult>;
  /** Throws AppError('invalid_callback_url') when the URL is not http(s) or resolves to an internal address. */
  assertAllowedUrl(url: string): Promise<void>;
  /** Optional: prepares what the first request would otherwise wait for (a worker thread). */
  warmUp?(): Promise<void>;
  close(): Promise<void>;
}

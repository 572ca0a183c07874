import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { Agent, errors as undiciErrors, request } from 'undici';
import { AppError } from '../../kernel/errors.js';
import { checkUrlShape, isInternalAddress } from './address-guard.js';
import { Deadlines } from './deadlines.js';
import type { OutboundRequest, OutboundResult, OutboundSender } from './ports.js';

export interface UndiciSenderOptions {
  allowPrivate: boolean;
  /** Sockets per origin (receiver). */
  connectionsPerOrigin?: number;
}

class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'EBLOCKEDADDRESS';
}

/**
 * DNS lookup used for every outbound connection: it refuses internal addresses at connect time,
 * so a name that resolves to a public address when saved and to 127.0.0.1 later is still refused.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => !isInternalAddress(a.address));
      if (allowed.length === 0) {
        return callback(new BlockedAddressError(`${hostname} resolves to an internal address`), '', 0);
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      }
      const first = allowed[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The save-time check of a customer URL: http(s) without credentials and, unless private
 * addresses are allowed, a host that resolves to no internal address. Throws
 * AppError('invalid_callback_url').
 */
export async function assertAllowedUrl(raw: string, allowPrivate: boolean): Promise<void> {
  const shape = checkUrlShape(raw);
  if ('reason' in shape) throw new AppError('invalid_callback_url', { detail: shape.reason });
  if (allowPrivate) return;
  const host = shape.url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) {
    throw new AppError('invalid_callback_url', { detail: `${host} is an internal address` });
  }
  let addresses: string[];
  try {
    addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new AppError('invalid_callback_url', { detail: `the host ${host} does not resolve` });
  }
  if (addresses.some(isInternalAddress)) {
    throw new AppError('invalid_callback_url', { detail: `${host} points at an internal address` });
  }
}

/** The result of a request that got no response. */
export function noResponse(error: NonNullable<OutboundResult['error']>, latencyMs = 0): OutboundResult {
  return { body: '', bodyTruncated: false, error, latencyMs };
}

export class UndiciOutboundSender implements OutboundSender {
  private readonly agent: Agent;
  private readonly deadlines = new Deadlines();

  constructor(private readonly options: UndiciSenderOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 10_000,
      connect: { lookup: guardedLookup(options.allowPrivate) },
    });
  }

  assertAllowedUrl(raw: string): Promise<void> {
    return assertAllowedUrl(raw, this.options.allowPrivate);
  }

  async post(req: OutboundRequest): Promise<OutboundResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    const shape = this.shapeOf(req.url);
    if ('reason' in shape) return noResponse({ kind: 'invalid_url', message: shape.reason });
    if (!this.options.allowPrivate && isIpLiteralInternal(shape.url.hostname)) {
      return noResponse({ kind: 'blocked_address', message: `${shape.url.hostname} is an internal address` });
    }
    const deadline = this.deadlines.start(req.timeoutMs);
    try {
      const res = await request(shape.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher: this.agent,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        // undici takes any EventTarget-like signal (see deadlines.ts); its types name AbortSignal.
        signal: deadline.signal as unknown as AbortSignal,
      });
      const length = Number(res.headers['content-length']);
      // A declared length within the cap is read whole; otherwise chunk by chunk up to the cap.
      const { text, truncated } =
        Number.isInteger(length) && length <= req.maxResponseBytes ? { text: await res.body.text(), truncated: false } : await readCapped(res.body, req.maxResponseBytes);
      const retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
      return { status: res.statusCode, body: text, bodyTruncated: truncated, latencyMs: elapsed(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    } catch (error) {
      return noResponse(classify(error), elapsed());
    } finally {
      deadline.clear();
    }
  }

  /** Receivers' URLs repeat (one per rule or association): parse each once. */
  private readonly shapes = new Map<string, ReturnType<typeof checkUrlShape>>();

  private shapeOf(raw: string): ReturnType<typeof checkUrlShape> {
    let shape = this.shapes.get(raw);
    if (!shape) {
      shape = checkUrlShape(raw);
      if (this.shapes.size >= 1000) this.shapes.clear();
      this.shapes.set(raw, shape);
    }
    return shape;
  }

  async close(): Promise<void> {
    this.deadlines.close();
    await this.agent.close();
  }
}

function isIpLiteralInternal(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return /^[\d.]+$/.test(bare) || bare.includes(':') ? isInternalAddress(bare) : false;
}

/**
 * Reads at most `max` bytes; the rest of a longer body is dropped unread (the socket is closed).
 * Plain 'data' events rather than an async iterator: a callback answer is a chunk or two, and
 * the iterator's machinery cost more than the reading.
 */
function readCapped(body: Readable, max: number): Promise<{ text: string; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > max) {
        body.removeAllListeners('data');
        body.removeAllListeners('end');
        body.on('error', () => undefined);
        body.destroy();
        resolve({ text: Buffer.concat(chunks).subarray(0, max).toString('utf8'), truncated: true });
      }
    });
    body.once('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated: false }));
    body.once('error', reject);
  });
}

function classify(error: unknown): { kind: 'timeout' | 'connection' | 'blocked_address'; message: string } {
  const e = error as Error & { code?: string; cause?: { code?: string; name?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'EBLOCKEDADDRESS' || e.cause?.name === 'BlockedAddressError') return { kind: 'blocked_address', message: e.cause ? String((e.cause as Error).message) : e.message };
  if (
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    e instanceof undiciErrors.ConnectTimeoutError ||
    e.name === 'TimeoutError' ||
    e.name === 'AbortError'
  ) {
    return { kind: 'timeout', message: 'no answer within the timeout' };
  }
  return { kind: 'connection', message: code ? `${code}: ${e.message}` : e.message };
}

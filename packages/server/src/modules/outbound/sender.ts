import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { AppError } from '../../kernel/errors.js';
import { signedJson } from '../callbacks/signed-json.js';
import { checkUrlShape, isInternalAddress } from './address-guard.js';
import { connectionMessage } from './connection-error.js';
import { Deadlines, type Deadline } from './deadlines.js';
import { KeyBudget, type BudgetLane, type BudgetWaiter } from './key-budget.js';
import type { OutboundRequest, OutboundResult, OutboundSender } from './ports.js';

export interface UndiciSenderOptions {
  allowPrivate: boolean;
  /** Sockets per origin (receiver), shared by every budget key (default 64). */
  connectionsPerOrigin?: number;
  /**
   * Requests of one budget key handed to an origin's pool at once; the rest wait in the key's own
   * queue (default a quarter of the pool, at least 1: 16 of 64).
   */
  connectionsPerKey?: number;
}

const DEFAULT_CONNECTIONS_PER_ORIGIN = 64;

/** Said of a send refused at connect time (a saved URL whose name now resolves inside, or a restart without the setting). */
const SEND_HINT = '; PARLEY_ALLOW_PRIVATE_CALLBACKS=true allows it';

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
        return callback(new BlockedAddressError(`${hostname} resolves to an internal address${SEND_HINT}`), '', 0);
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

/** What a refused internal address is, and the setting that allows it (for local receivers). */
const PRIVATE_HINT =
  ' (loopback, private, link-local or metadata). Parley refuses such addresses unless it is started with PARLEY_ALLOW_PRIVATE_CALLBACKS=true, meant for local testing';

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
    throw new AppError('invalid_callback_url', { detail: `${host} is an internal address${PRIVATE_HINT}` });
  }
  let addresses: string[];
  try {
    addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new AppError('invalid_callback_url', { detail: `the host ${host} does not resolve` });
  }
  if (addresses.some(isInternalAddress)) {
    throw new AppError('invalid_callback_url', { detail: `${host} points at an internal address${PRIVATE_HINT}` });
  }
}

/** The result of a request that got no response. */
export function noResponse(error: NonNullable<OutboundResult['error']>, latencyMs = 0): OutboundResult {
  return { body: '', bodyTruncated: false, error, latencyMs };
}

export class UndiciOutboundSender implements OutboundSender {
  private readonly agent: Agent;
  private readonly deadlines = new Deadlines();
  private readonly budget: KeyBudget;

  constructor(private readonly options: UndiciSenderOptions) {
    const pool = options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN;
    this.budget = new KeyBudget(options.connectionsPerKey ?? Math.max(1, Math.floor(pool / 4)));
    this.agent = new Agent({
      connections: pool,
      keepAliveTimeout: 10_000,
      connect: { lookup: guardedLookup(options.allowPrivate) },
    });
  }

  assertAllowedUrl(raw: string): Promise<void> {
    return assertAllowedUrl(raw, this.options.allowPrivate);
  }

  post(req: OutboundRequest): Promise<OutboundResult> {
    const shape = this.shapeOf(req.url);
    if ('reason' in shape) return Promise.resolve(noResponse({ kind: 'invalid_url', message: shape.reason }));
    if (!this.options.allowPrivate && isIpLiteralInternal(shape.url.hostname)) {
      return Promise.resolve(noResponse({ kind: 'blocked_address', message: `${shape.url.hostname} is an internal address${SEND_HINT}` }));
    }
    const { signing } = req;
    const signed = signing ? signedJson(signing.record, signing.callId, signing.timestamp, signing.secret, signing.nowMs) : req;
    return new Promise((resolve) => {
      const origin = shape.url.origin;
      const dispatch: Dispatcher.DispatchOptions = {
        origin,
        path: shape.url.pathname + shape.url.search,
        method: 'POST',
        headers: signed.headers,
        body: signed.body,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      };
      // The deadline runs from here: time spent waiting for the key's budget counts.
      const exchange = new Exchange(req.maxResponseBytes, this.deadlines.start(req.timeoutMs), resolve, this.agent, dispatch);
      this.budget.enter(origin, req.budgetKey, exchange);
    });
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
    // Requests waiting for their key's budget still go out (or time out) before the pool closes.
    await this.budget.idle();
    this.deadlines.close();
    await this.agent.close();
  }
}

function isIpLiteralInternal(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return /^[\d.]+$/.test(bare) || bare.includes(':') ? isInternalAddress(bare) : false;
}

/**
 * One POST as an undici dispatch handler, settling with its OutboundResult.
 *
 * undici's `request()` wraps every exchange in an async resource, a response stream and a parsed
 * header object; a callback answer needs none of them (a status, one header, a few bytes of
 * body), and on the outbound thread they cost about 40 % of the CPU of a request. The handler reads the status, `Retry-After` and at most
 * `max` bytes of the body; past that, the rest is dropped unread and the connection closed.
 * The overall deadline aborts the exchange wherever it is: waiting for its key's budget
 * (key-budget.ts), for a connection, for the headers, or in a body that keeps dripping. Its
 * budget slot is given back when undici is done with it (onComplete or onError), not when it
 * settles: a request that expired in the pool's queue still occupies the pool until then.
 */
class Exchange implements BudgetWaiter {
  private readonly started = performance.now();
  private status: number | undefined;
  private retryAfter: string | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private abort: ((reason: Error) => void) | undefined;
  /** The deadline passed before the request reached a connection. */
  private expired: Error | undefined;
  /** The budget slot, from the dispatch until undici is done with the request. */
  private lane: BudgetLane | undefined;

  constructor(
    private readonly max: number,
    private readonly deadline: Deadline,
    private readonly resolve: (result: OutboundResult) => void,
    private readonly agent: Dispatcher,
    private readonly dispatch: Dispatcher.DispatchOptions,
  ) {
    deadline.signal.addEventListener('abort', () => this.expire(deadline.signal.reason as Error));
  }

  /** Failed (its deadline passed) while it waited for its key's budget: it is never sent. */
  get abandoned(): boolean {
    return this.settled;
  }

  /** Its key's budget has a slot for it: hand it to the origin's pool. */
  start(lane: BudgetLane): void {
    this.lane = lane;
    this.agent.dispatch(this.dispatch, this);
  }

  onConnect(abort: (reason: Error) => void): void {
    if (this.expired) abort(this.expired);
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx answers (100 Continue, 103 Early Hints) precede the real one.
    if (statusCode < 200) return true;
    this.status = statusCode;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i] as Buffer;
      if (name.length === 11 && name.toString('latin1').toLowerCase() === 'retry-after') this.retryAfter = String(rawHeaders[i + 1]);
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.max) {
      const text = Buffer.concat(this.chunks, this.size).subarray(0, this.max).toString('utf8');
      this.answer(text, true);
      // The rest is not read: the connection is closed (the abort's onError finds us settled).
      this.abort?.(new Error('response body over the cap'));
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.releaseSlot();
    const chunks = this.chunks;
    this.answer(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, this.size).toString('utf8'), false);
  }

  onError(error: Error): void {
    this.releaseSlot();
    this.settle(noResponse(classify(error), this.elapsed()));
  }

  private releaseSlot(): void {
    const lane = this.lane;
    this.lane = undefined;
    lane?.release();
  }

  private expire(reason: Error): void {
    if (this.abort) {
      // Connected: undici ends the exchange and reports the reason through onError.
      this.abort(reason);
      return;
    }
    // Still waiting for a connection: it fails now, and is dropped when it reaches one.
    this.expired = reason;
    this.settle(noResponse(classify(reason), this.elapsed()));
  }

  private answer(body: string, bodyTruncated: boolean): void {
    const retryAfterMs = parseRetryAfter(this.retryAfter, Date.now());
    const result: OutboundResult = { status: this.status as number, body, bodyTruncated, latencyMs: this.elapsed() };
    if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
    this.settle(result);
  }

  private settle(result: OutboundResult): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks = [];
    this.deadline.clear();
    this.resolve(result);
  }

  private elapsed(): number {
    return Math.round((performance.now() - this.started) * 100) / 100;
  }
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
  // A wrapped socket error (fetch's "fetch failed") says what happened in its cause.
  const socketError = e.code === undefined && e.cause?.code !== undefined ? (e.cause as Error & { code: string }) : e;
  return { kind: 'connection', message: connectionMessage(socketError) };
}

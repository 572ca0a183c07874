/**
 * The one reader of process.env. Produces a validated, frozen Config; a bad value throws a
 * ConfigError whose message is one line naming the variable.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface ServerLimits {
  /** Time to receive a whole request, headers and body (PARLEY_REQUEST_TIMEOUT_MS); 408 beyond. */
  readonly requestTimeoutMs: number;
  /** Time to receive a request's headers (PARLEY_HEADERS_TIMEOUT_MS); at most requestTimeoutMs. */
  readonly headersTimeoutMs: number;
  /** Idle time a kept-alive connection waits for its next request (PARLEY_KEEP_ALIVE_TIMEOUT_MS). */
  readonly keepAliveTimeoutMs: number;
  /** Open TCP connections, IM sockets included (PARLEY_MAX_CONNECTIONS); more are closed on accept. */
  readonly maxConnections: number;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** undefined: SQLite file `parley.db` in dataDir. */
  readonly databaseUrl: string | undefined;
  /** undefined: single instance, in-process coordination. */
  readonly redisUrl: string | undefined;
  /**
   * Prefix of every Redis key and pub/sub channel Parley uses (PARLEY_REDIS_PREFIX, default
   * `parley:`), so several deployments (or test runs) can share one Redis.
   */
  readonly redisPrefix: string;
  readonly adminUsername: string;
  readonly adminPassword: string | undefined;
  readonly allowPrivateCallbacks: boolean;
  /** Send callbacks and reply pushes from a worker thread (PARLEY_OUTBOUND_THREAD, default true). */
  readonly outboundThread: boolean;
  /** Connections per receiver origin, shared by every rule and association (PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN). */
  readonly outboundConnectionsPerOrigin: number;
  /**
   * Requests of one rule or association using an origin's connections at once; always below the
   * pool size, so a hung receiver leaves room for others (PARLEY_OUTBOUND_CONNECTIONS_PER_KEY).
   */
  readonly outboundConnectionsPerKey: number;
  readonly logLevel: LogLevel;
  /** Lifetime of console bearer tokens, seconds. */
  readonly tokenTtlSeconds: number;
  /** Requests per minute per client on the /api surface. */
  readonly apiRateLimitPerMinute: number;
  /** Downloads per minute per client IP on `/media/{id}` (PARLEY_MEDIA_RATE_LIMIT). */
  readonly mediaRateLimitPerMinute: number;
  /** Largest accepted request body on generic routes, bytes. */
  readonly bodyLimitBytes: number;
  /** Limits of the HTTP server against slow or idle clients (node:http settings of the same names). */
  readonly server: ServerLimits;
  /** Create the demo tenant (and demo IM app) on an empty database. */
  readonly seedDemo: boolean;
  /** Requests per second per IM app on `/{org}/{app}/...` (PARLEY_IM_RATE_LIMIT). */
  readonly imRateLimitPerSecond: number;
  /** Send-message requests per second per REST association (PARLEY_CHANNEL_RATE_LIMIT). */
  readonly channelRateLimitPerSecond: number;
  /**
   * Failed authentications per client IP and IM app, or per IP and REST association, per minute
   * before that IP is refused there (PARLEY_AUTH_FAILURE_LIMIT). Counted apart from the app's or
   * association's own limit, which only authenticated requests use.
   */
  readonly authFailuresPerMinute: number;
  /**
   * Addresses (IPs or CIDR ranges) of the load balancers in front of Parley (PARLEY_TRUST_PROXY,
   * default none). Per-IP limits then count the client named in X-Forwarded-For, not the balancer.
   */
  readonly trustProxy: readonly string[];
  /** Password hashes (scrypt) run at once (PARLEY_PASSWORD_HASH_CONCURRENCY, default half the cores, at least 1). */
  readonly passwordHashConcurrency: number;
  /** Password checks that may wait for a slot in each lane of the pool; more get 503 at once (PARLEY_PASSWORD_HASH_QUEUE). */
  readonly passwordHashQueue: number;
  /** Default lifetime of IM app and user tokens, seconds (PARLEY_IM_TOKEN_TTL_SECONDS). */
  readonly imTokenTtlSeconds: number;
  /** How long after sending a user may recall (or edit) a message, seconds (PARLEY_IM_RECALL_SECONDS). */
  readonly imRecallSeconds: number;
  /** Interval of socket heartbeats; a socket that misses one is closed (PARLEY_IM_HEARTBEAT_SECONDS). */
  readonly imHeartbeatSeconds: number;
  /**
   * Largest outbound buffer of one IM socket, bytes; a socket holding more is dropped as a slow
   * consumer (PARLEY_IM_SOCKET_BUFFER_BYTES).
   */
  readonly imSocketBufferBytes: number;
  /** Open IM sockets of one user per instance; the oldest is closed beyond (PARLEY_IM_SOCKETS_PER_USER). */
  readonly imSocketsPerUser: number;
  /** Open IM sockets of one app per instance; new ones are refused beyond (PARLEY_IM_SOCKETS_PER_APP). */
  readonly imSocketsPerApp: number;
  /**
   * Messages per second one user may send over sockets (JSON socket and msync), across their
   * sockets; they also count toward the app's PARLEY_IM_RATE_LIMIT (PARLEY_IM_USER_SEND_RATE_LIMIT).
   */
  readonly imUserSendRateLimitPerSecond: number;
  /**
   * Receipts, recalls and edits per second one user may send over sockets (JSON socket and msync),
   * across their sockets: a bucket of their own, apart from messages (PARLEY_IM_USER_CHANGE_RATE_LIMIT).
   */
  readonly imUserChangeRateLimitPerSecond: number;
  /** Chat-file downloads per minute per client IP, with or without a token (PARLEY_IM_FILE_DOWNLOAD_RATE_LIMIT). */
  readonly imFileDownloadRateLimitPerMinute: number;
  /** Largest IM chat file, bytes (PARLEY_IM_FILE_MAX_MB); the quota and retention are the media store's. */
  readonly imFileMaxBytes: number;
  /** How far back history roaming reaches, ms (PARLEY_IM_HISTORY_DAYS). */
  readonly imHistoryMs: number;
  /** How long an msync socket may stay open without a successful provision, ms (PARLEY_MSYNC_PROVISION_TIMEOUT_MS). */
  readonly msyncProvisionTimeoutMs: number;
  /** msync sockets not logged in yet per client address; more are refused before the upgrade (PARLEY_MSYNC_PENDING_PER_IP). */
  readonly msyncPendingPerIp: number;
  /**
   * Run background workers (job queue: fan-out, pushes, callbacks). false serves the API only
   * and leaves accepted work queued in the database, e.g. for maintenance.
   */
  readonly workers: boolean;
  /**
   * How often the conversation search's background indexer runs, ms (PARLEY_SEARCH_INDEX_INTERVAL_MS,
   * modules/channel/message-indexer.ts); 0 runs none here (the search still finds every message,
   * reading the ones past the index's watermark directly). Only with `workers`.
   */
  readonly searchIndexIntervalMs: number;
  /**
   * Messages the indexer reads per run, in one transaction (PARLEY_SEARCH_INDEX_BATCH): at most this
   * many a run, so at most batch ÷ interval a second are indexed; a burst beyond waits for later runs.
   */
  readonly searchIndexBatch: number;
  /**
   * Instances' heartbeat (modules/cluster): written every `heartbeatMs` (PARLEY_HEARTBEAT_MS); an
   * instance whose beat has not moved for `deadAfterMs` (PARLEY_INSTANCE_DEAD_AFTER_MS) is dead
   * and its leased jobs are released to the others.
   */
  readonly cluster: Readonly<{ heartbeatMs: number; deadAfterMs: number }>;
  /** Reply and conversation-event pushes running at once per instance (PARLEY_PUSH_CONCURRENCY). */
  readonly pushConcurrency: number;
  /** Rows per batch (and transaction) of `npm run admin -- copy-to` (PARLEY_COPY_BATCH_ROWS). */
  readonly copyBatchRows: number;
  /**
   * Key sealing stored secrets (REST Client Secrets) with AES-256-GCM, from PARLEY_SECRET_KEY
   * (32 bytes as 64 hex characters or base64). undefined: the key in DATA_DIR/secret.key,
   * generated on first start. Several instances must share it.
   */
  readonly secretKey: Buffer | undefined;
  /** Absolute base URL under which Parley is reachable by customers' servers (media links). */
  readonly publicUrl: string;
  /** Directory of the built web console served at /console (index.html and assets/). */
  readonly consoleDir: string;
  /** Post-send callbacks (Area B). */
  readonly callbacks: CallbacksConfig;
  /** Uploaded media (Area A replies). */
  readonly media: MediaConfig;
}

export interface MediaConfig {
  /** Bytes one tenant's stored files may take in all (PARLEY_MEDIA_QUOTA_MB). */
  readonly quotaBytes: number;
  /** Files older than this are deleted, ms; 0 keeps them forever (PARLEY_MEDIA_RETENTION_DAYS). */
  readonly retentionMs: number;
}

export interface CallbacksConfig {
  /** Per-attempt timeout, ms (spec: 10 s). */
  readonly attemptTimeoutMs: number;
  /** Deliveries of one rule in flight at once in this process. */
  readonly ruleConcurrency: number;
  /** How long the exception store keeps a record, ms (spec: 3 days). */
  readonly storeRetentionMs: number;
  /** IANA zone of the exception store's date keys. */
  readonly dateKeyZone: string;
  /** Records of one app re-sent from the exception store per second, per instance. */
  readonly resendPerSecond: number;
  /** How long an instance keeps an app's callback rules and switches before reading them again, ms. */
  readonly ruleCacheMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A comma-separated list of IPs or IP/prefix ranges. */
function addressList(env: Env, name: string): readonly string[] {
  const entries = (env[name] ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const max = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))) {
      throw new ConfigError(`${name} must be a comma-separated list of IP addresses or ranges like 10.0.0.0/8 (got "${entry}")`);
    }
  }
  return Object.freeze(entries);
}

/**
 * Half the cores, at least one: during a flood of password guesses the other half keeps serving
 * every other request (one on a two-core machine).
 */
const HASH_CONCURRENCY_DEFAULT = Math.max(1, Math.floor(availableParallelism() / 2));

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

/**
 * The outbound pool per origin and the budget per key inside it. The budget must stay below the
 * pool so one key's hung receiver can never hold every connection; by default it is a quarter.
 */
function outboundConnections(env: Env): { perOrigin: number; perKey: number } {
  const perOrigin = int(env, 'PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN', 64, 2, 4096);
  const perKey = int(env, 'PARLEY_OUTBOUND_CONNECTIONS_PER_KEY', Math.max(1, Math.floor(perOrigin / 4)), 1, 4095);
  if (perKey >= perOrigin) {
    throw new ConfigError(`PARLEY_OUTBOUND_CONNECTIONS_PER_KEY must be below PARLEY_OUTBOUND_CONNECTIONS_PER_ORIGIN (${perOrigin}) (got "${env.PARLEY_OUTBOUND_CONNECTIONS_PER_KEY}")`);
  }
  return { perOrigin, perKey };
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must be a URL starting with ${protocols.join(' or ')} (got "${parsed.protocol}")`);
  }
  return raw.trim();
}

function secretKey(env: Env, name: string): Buffer | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(raw) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(raw))) {
    throw new ConfigError(`${name} must be 32 bytes written as 64 hex characters or base64`);
  }
  return key;
}

function publicBaseUrl(env: Env, host: string, port: number): string {
  const given = url(env, 'PARLEY_PUBLIC_URL', ['http:', 'https:']);
  if (given) return given.replace(/\/+$/, '');
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

function timeZone(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: raw });
  } catch {
    throw new ConfigError(`${name} must be an IANA time zone such as UTC or Asia/Shanghai (got "${raw}")`);
  }
  return raw;
}
function redisPrefix(env: Env, name: string): string {
  const raw = env[name]?.trim();
  if (!raw) return 'parley:';
  if (!/^[\w:.-]{1,64}$/.test(raw)) throw new ConfigError(`${name} must be 1-64 characters of letters, digits, _ : . - (got "${raw}")`);
  return raw;
}

/** The console package's build output; this file sits at the same depth in src/ and dist/. */
const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../../console/dist', import.meta.url));

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);

  const host = env.HOST?.trim() || '127.0.0.1';
  const adminUsername = env.PARLEY_ADMIN_USERNAME?.trim() || 'admin';
  if (adminUsername.length > 128) throw new ConfigError('PARLEY_ADMIN_USERNAME must be at most 128 characters');
  const adminPassword = env.PARLEY_ADMIN_PASSWORD === undefined || env.PARLEY_ADMIN_PASSWORD === '' ? undefined : env.PARLEY_ADMIN_PASSWORD;
  if (adminPassword !== undefined && adminPassword.length < 8) throw new ConfigError('PARLEY_ADMIN_PASSWORD must be at least 8 characters');

  const port = int(env, 'PORT', 8080, 0, 65535);
  const outbound = outboundConnections(env);
  const config: Config = {
    port,
    host,
    dataDir: path.resolve(cwd, env.DATA_DIR?.trim() || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: redisPrefix(env, 'PARLEY_REDIS_PREFIX'),
    adminUsername,
    adminPassword,
    allowPrivateCallbacks: bool(env, 'PARLEY_ALLOW_PRIVATE_CALLBACKS', false),
    outboundThread: bool(env, 'PARLEY_OUTBOUND_THREAD', true),
    outboundConnectionsPerOrigin: outbound.perOrigin,
    outboundConnectionsPerKey: outbound.perKey,
    logLevel,
    tokenTtlSeconds: int(env, 'PARLEY_TOKEN_TTL_SECONDS', 24 * 3600, 60, 365 * 24 * 3600),
    apiRateLimitPerMinute: int(env, 'PARLEY_API_RATE_LIMIT', 600, 1, 1_000_000),
    mediaRateLimitPerMinute: int(env, 'PARLEY_MEDIA_RATE_LIMIT', 1200, 1, 1_000_000),
    bodyLimitBytes: int(env, 'PARLEY_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    server: serverLimits(env),
    seedDemo: bool(env, 'PARLEY_SEED_DEMO', true),
    imRateLimitPerSecond: int(env, 'PARLEY_IM_RATE_LIMIT', 100, 1, 1_000_000),
    channelRateLimitPerSecond: int(env, 'PARLEY_CHANNEL_RATE_LIMIT', 1000, 1, 1_000_000),
    trustProxy: addressList(env, 'PARLEY_TRUST_PROXY'),
    authFailuresPerMinute: int(env, 'PARLEY_AUTH_FAILURE_LIMIT', 30, 1, 1_000_000),
    passwordHashConcurrency: int(env, 'PARLEY_PASSWORD_HASH_CONCURRENCY', HASH_CONCURRENCY_DEFAULT, 1, 256),
    passwordHashQueue: int(env, 'PARLEY_PASSWORD_HASH_QUEUE', 32, 0, 100_000),
    imTokenTtlSeconds: int(env, 'PARLEY_IM_TOKEN_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    imRecallSeconds: int(env, 'PARLEY_IM_RECALL_SECONDS', 120, 1, 7 * 24 * 3600),
    imHeartbeatSeconds: int(env, 'PARLEY_IM_HEARTBEAT_SECONDS', 30, 1, 3600),
    imSocketBufferBytes: int(env, 'PARLEY_IM_SOCKET_BUFFER_BYTES', 1024 * 1024, 16 * 1024, 256 * 1024 * 1024),
    imSocketsPerUser: int(env, 'PARLEY_IM_SOCKETS_PER_USER', 10, 1, 1000),
    imSocketsPerApp: int(env, 'PARLEY_IM_SOCKETS_PER_APP', 10_000, 1, 10_000_000),
    imUserSendRateLimitPerSecond: int(env, 'PARLEY_IM_USER_SEND_RATE_LIMIT', 20, 1, 1_000_000),
    imUserChangeRateLimitPerSecond: int(env, 'PARLEY_IM_USER_CHANGE_RATE_LIMIT', 50, 1, 1_000_000),
    imFileDownloadRateLimitPerMinute: int(env, 'PARLEY_IM_FILE_DOWNLOAD_RATE_LIMIT', 600, 1, 1_000_000),
    imFileMaxBytes: int(env, 'PARLEY_IM_FILE_MAX_MB', 10, 1, 1024) * 1024 * 1024,
    imHistoryMs: int(env, 'PARLEY_IM_HISTORY_DAYS', 180, 1, 100 * 365) * 24 * 3_600_000,
    msyncProvisionTimeoutMs: int(env, 'PARLEY_MSYNC_PROVISION_TIMEOUT_MS', 10_000, 100, 600_000),
    msyncPendingPerIp: int(env, 'PARLEY_MSYNC_PENDING_PER_IP', 32, 1, 100_000),
    workers: bool(env, 'PARLEY_WORKERS', true),
    searchIndexIntervalMs: int(env, 'PARLEY_SEARCH_INDEX_INTERVAL_MS', 1_000, 0, 3_600_000),
    searchIndexBatch: int(env, 'PARLEY_SEARCH_INDEX_BATCH', 250, 1, 100_000),
    cluster: Object.freeze({
      heartbeatMs: int(env, 'PARLEY_HEARTBEAT_MS', 1_000, 100, 60_000),
      deadAfterMs: int(env, 'PARLEY_INSTANCE_DEAD_AFTER_MS', 3_000, 300, 600_000),
    }),
    pushConcurrency: int(env, 'PARLEY_PUSH_CONCURRENCY', 32, 1, 1024),
    copyBatchRows: int(env, 'PARLEY_COPY_BATCH_ROWS', 5000, 100, 100_000),
    secretKey: secretKey(env, 'PARLEY_SECRET_KEY'),
    publicUrl: publicBaseUrl(env, host, port),
    callbacks: Object.freeze({
      attemptTimeoutMs: int(env, 'PARLEY_CALLBACK_TIMEOUT_MS', 10_000, 50, 60_000),
      ruleConcurrency: int(env, 'PARLEY_CALLBACK_RULE_CONCURRENCY', 128, 1, 1024),
      storeRetentionMs: int(env, 'PARLEY_CALLBACK_STORE_RETENTION_HOURS', 72, 1, 24 * 365) * 3_600_000,
      dateKeyZone: timeZone(env, 'PARLEY_CALLBACK_DATE_KEY_ZONE', 'UTC'),
      resendPerSecond: int(env, 'PARLEY_CALLBACK_RESEND_PER_SECOND', 200, 1, 100_000),
      ruleCacheMs: int(env, 'PARLEY_CALLBACK_RULE_CACHE_MS', 2_000, 0, 3_600_000),
    }),
    media: Object.freeze({
      quotaBytes: int(env, 'PARLEY_MEDIA_QUOTA_MB', 1024, 1, 1024 * 1024) * 1024 * 1024,
      retentionMs: int(env, 'PARLEY_MEDIA_RETENTION_DAYS', 90, 0, 100 * 365) * 24 * 3_600_000,
    }),
    consoleDir: env.PARLEY_CONSOLE_DIR?.trim() ? path.resolve(cwd, env.PARLEY_CONSOLE_DIR.trim()) : DEFAULT_CONSOLE_DIR,
  };
  return Object.freeze(config);
}

function serverLimits(env: Env): ServerLimits {
  const requestTimeoutMs = int(env, 'PARLEY_REQUEST_TIMEOUT_MS', 30_000, 50, 3_600_000);
  const headersTimeoutMs = int(env, 'PARLEY_HEADERS_TIMEOUT_MS', 10_000, 50, 3_600_000);
  // node:http refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('PARLEY_HEADERS_TIMEOUT_MS must not exceed PARLEY_REQUEST_TIMEOUT_MS');
  return Object.freeze({
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: int(env, 'PARLEY_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, 600_000),
    maxConnections: int(env, 'PARLEY_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
  });
}

/** Test and embedding helper: defaults plus overrides, still validated through loadConfig. */
export function configFrom(overrides: Env, cwd?: string): Config {
  return loadConfig({ LOG_LEVEL: 'silent', ...overrides }, cwd);
}

/**
 * The one reader of process.env. Produces a validated, frozen Config; a bad value throws a
 * ConfigError whose message is one line naming the variable.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
  readonly logLevel: LogLevel;
  /** Lifetime of console bearer tokens, seconds. */
  readonly tokenTtlSeconds: number;
  /** Requests per minute per client on the /api surface. */
  readonly apiRateLimitPerMinute: number;
  /** Largest accepted request body on generic routes, bytes. */
  readonly bodyLimitBytes: number;
  /** Create the demo tenant (and demo IM app) on an empty database. */
  readonly seedDemo: boolean;
  /** Requests per second per IM app on `/{org}/{app}/...` (PARLEY_IM_RATE_LIMIT). */
  readonly imRateLimitPerSecond: number;
  /** Send-message requests per second per REST association (PARLEY_CHANNEL_RATE_LIMIT). */
  readonly channelRateLimitPerSecond: number;
  /** Default lifetime of IM app and user tokens, seconds (PARLEY_IM_TOKEN_TTL_SECONDS). */
  readonly imTokenTtlSeconds: number;
  /** Interval of socket heartbeats; a socket that misses one is closed (PARLEY_IM_HEARTBEAT_SECONDS). */
  readonly imHeartbeatSeconds: number;
  /**
   * Run background workers (job queue: fan-out, pushes, callbacks). false serves the API only
   * and leaves accepted work queued in the database, e.g. for maintenance.
   */
  readonly workers: boolean;
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
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

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
    logLevel,
    tokenTtlSeconds: int(env, 'PARLEY_TOKEN_TTL_SECONDS', 24 * 3600, 60, 365 * 24 * 3600),
    apiRateLimitPerMinute: int(env, 'PARLEY_API_RATE_LIMIT', 600, 1, 1_000_000),
    bodyLimitBytes: int(env, 'PARLEY_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    seedDemo: bool(env, 'PARLEY_SEED_DEMO', true),
    imRateLimitPerSecond: int(env, 'PARLEY_IM_RATE_LIMIT', 100, 1, 1_000_000),
    channelRateLimitPerSecond: int(env, 'PARLEY_CHANNEL_RATE_LIMIT', 1000, 1, 1_000_000),
    imTokenTtlSeconds: int(env, 'PARLEY_IM_TOKEN_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    imHeartbeatSeconds: int(env, 'PARLEY_IM_HEARTBEAT_SECONDS', 30, 1, 3600),
    workers: bool(env, 'PARLEY_WORKERS', true),
    secretKey: secretKey(env, 'PARLEY_SECRET_KEY'),
    publicUrl: publicBaseUrl(env, host, port),
    callbacks: Object.freeze({
      attemptTimeoutMs: int(env, 'PARLEY_CALLBACK_TIMEOUT_MS', 10_000, 50, 60_000),
      ruleConcurrency: int(env, 'PARLEY_CALLBACK_RULE_CONCURRENCY', 128, 1, 1024),
      storeRetentionMs: int(env, 'PARLEY_CALLBACK_STORE_RETENTION_HOURS', 72, 1, 24 * 365) * 3_600_000,
      dateKeyZone: timeZone(env, 'PARLEY_CALLBACK_DATE_KEY_ZONE', 'UTC'),
      resendPerSecond: int(env, 'PARLEY_CALLBACK_RESEND_PER_SECOND', 200, 1, 100_000),
    }),
    consoleDir: env.PARLEY_CONSOLE_DIR?.trim() ? path.resolve(cwd, env.PARLEY_CONSOLE_DIR.trim()) : DEFAULT_CONSOLE_DIR,
  };
  return Object.freeze(config);
}

/** Test and embedding helper: defaults plus overrides, still validated through loadConfig. */
export function configFrom(overrides: Env, cwd?: string): Config {
  return loadConfig({ LOG_LEVEL: 'silent', ...overrides }, cwd);
}

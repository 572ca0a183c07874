/**
 * IM apps and their tokens (contract 4.1). Client secrets and tokens are random and stored as
 * sha256 hashes; compares are constant-time. Two token levels: `admin` (client_credentials) and
 * `user` (password grant).
 */
import { timingSafeEqual } from 'node:crypto';
import { DEFAULT_SECRET_OVERLAP_SECONDS, type AppCreated, type AppSummary, type AppTokenResult, type UserTokenResult } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { randomHex, randomToken, sha256Hex, uuid } from '../../kernel/ids.js';
import { liveSecrets, overlapAfterRotation } from '../../kernel/secret-overlap.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import type { Passwords } from '../accounts/password.js';
import type { ImApp, ImAppsRepository, ImUsersRepository, TokenRecord } from './ports.js';
import { foldUsername, imUserView } from './users.js';

export type ImPrincipal = { level: 'admin' } | { level: 'user'; username: string };

/** Called once a token request's credentials hold; throws to refuse it (e.g. 429). */
export type Admit = () => Promise<void> | void;
const noAdmit: Admit = () => undefined;


/** Constant-time compare of two hex digests of equal length. */
function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Org and app names that would collide with other surfaces' paths. */
const RESERVED_ORGS = new Set(['api', 'management', 'docs', 'console', 'healthz', 'readyz', 'metrics', 'openapi.json']);

export const DEMO_ORG = 'demo';
export const DEMO_APP = 'demo';

/** How long a verified token is trusted without a database read (expiry is still checked). */
const TOKEN_CACHE_MS = 10_000;
const TOKEN_CACHE_MAX = 10_000;

/** Life of an app token issued to the console's system admin (`POST /management/apps/{org}/{app}/token`). */
export const CONSOLE_APP_TOKEN_SECONDS = 3600;

export class ImAppsService {
  /** Apps are never deleted, so a found app can be cached for the life of the process. */
  private readonly cache = new Map<string, ImApp>();
  /** Recently verified tokens by hash: one database read per token per few seconds, not per request. */
  private readonly tokens = new Map<string, { record: TokenRecord; at: number }>();

  constructor(
    private readonly apps: ImAppsRepository,
    private readonly users: ImUsersRepository,
    private readonly clock: Clock,
    private readonly defaultTtlSeconds: number,
    private readonly passwords: Passwords,
  ) {}

  async createApp(orgName: string, appName: string): Promise<{ app: ImApp; created: AppCreated }> {
    if (RESERVED_ORGS.has(orgName.toLowerCase())) throw new AppError('illegal_argument', { detail: `org_name: "${orgName}" is reserved` });
    const clientSecret = randomHex(24);
    try {
      const app = await this.apps.createApp({
        id: uuid(),
        orgName,
        appName,
        clientId: `YXA6${randomToken(16)}`,
        clientSecretHash: sha256Hex(clientSecret),
        createdAt: this.clock.now(),
      });
      return { app, created: { appkey: app.appkey, application: app.id, client_id: app.clientId, client_secret: clientSecret } };
    } catch (error) {
      if (isConflict(error, 'unique')) {
        throw new AppError('duplicate_unique_property_exists', { entity: 'application', property: 'name', value: `${orgName}#${appName}` });
      }
      throw error;
    }
  }

  /** Creates the demo app on first boot; returns its credentials only when it was created now. */
  async ensureDemoApp(): Promise<AppCreated | undefined> {
    if (await this.apps.findApp(DEMO_ORG, DEMO_APP)) return undefined;
    try {
      return (await this.createApp(DEMO_ORG, DEMO_APP)).created;
    } catch (error) {
      // Another instance booting at the same moment created it.
      if (error instanceof AppError && error.code === 'duplicate_unique_property_exists') return undefined;
      throw error;
    }
  }

  async requireApp(orgName: string, appName: string): Promise<ImApp> {
    const key = `${orgName}#${appName}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const app = await this.apps.findApp(orgName, appName);
    if (!app) throw new AppError('organization_application_not_found', { org: orgName, app: appName });
    this.cache.set(key, app);
    return app;
  }

  /** The appkey (`org#app`) of an app id, for events; undefined when the app is gone. */
  async appkeyOf(appId: string): Promise<string | undefined> {
    for (const app of this.cache.values()) if (app.id === appId) return app.appkey;
    const app = await this.apps.findAppById(appId);
    if (app) this.cache.set(app.appkey, app);
    return app?.appkey;
  }

  /** Every app with its client id (never its secret), oldest first. */
  async listApps(): Promise<AppSummary[]> {
    return (await this.apps.listApps()).map((app) => ({
      appkey: app.appkey,
      org_name: app.orgName,
      app_name: app.appName,
      application: app.id,
      client_id: app.clientId,
      created: app.createdAt,
    }));
  }

  /**
   * A new client secret, shown once. The old one still grants tokens for `overlapSeconds`
   * (contract 6.6; 0: it stops at once), on every instance (grants read the stored hashes). A
   * rotation during an overlap drops the older secret. Tokens already issued keep working until they expire.
   */
  async rotateSecret(orgName: string, appName: string, overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS): Promise<{ app: ImApp; created: AppCreated }> {
    const app = await this.requireApp(orgName, appName);
    const stored = (await this.apps.findAppById(app.id)) ?? app;
    const clientSecret = randomHex(24);
    const clientSecretHash = sha256Hex(clientSecret);
    const previousSecretHash = overlapAfterRotation(stored.clientSecretHash, overlapSeconds, this.clock.now());
    await this.apps.setClientSecretHash(app.id, clientSecretHash, previousSecretHash);
    const updated = { ...app, clientSecretHash, previousSecretHash };
    this.cache.set(app.appkey, updated);
    return { app: updated, created: { appkey: app.appkey, application: app.id, client_id: app.clientId, client_secret: clientSecret } };
  }

  /** Ends a rotation's overlap early: only the current client secret grants tokens. */
  async endSecretOverlap(orgName: string, appName: string): Promise<ImApp> {
    const app = await this.requireApp(orgName, appName);
    const stored = (await this.apps.findAppById(app.id)) ?? app;
    await this.apps.setClientSecretHash(app.id, stored.clientSecretHash, null);
    const updated = { ...app, clientSecretHash: stored.clientSecretHash, previousSecretHash: null };
    this.cache.set(app.appkey, updated);
    return updated;
  }

  /**
   * `admit` runs once the credentials hold, before the token is issued (the app's rate limit).
   * The secret is checked against the stored hash, not the cached app, so a rotation on another
   * instance holds here at once.
   */
  async appToken(app: ImApp, clientId: string, clientSecret: string, ttl: number | undefined, admit: Admit = noAdmit): Promise<AppTokenResult> {
    const stored = await this.apps.findAppById(app.id);
    const idOk = sameHash(sha256Hex(clientId), sha256Hex(app.clientId));
    const offered = sha256Hex(clientSecret);
    const secretOk =
      stored !== undefined &&
      liveSecrets(stored.clientSecretHash, stored.previousSecretHash, this.clock.now()).reduce((ok, hash) => sameHash(offered, hash) || ok, false);
    if (!idOk || !secretOk) throw new AppError('invalid_grant');
    await admit();
    const expiresIn = ttl ?? this.defaultTtlSeconds;
    const token = await this.issue(app, null, expiresIn);
    return { access_token: token, expires_in: expiresIn, application: app.id };
  }

  /**
   * An app-admin token for the console's system admin, who is authenticated by the caller (no
   * client secret): it lasts at most CONSOLE_APP_TOKEN_SECONDS, or the app's default TTL when shorter.
   */
  async consoleToken(orgName: string, appName: string): Promise<{ app: ImApp; token: AppTokenResult }> {
    const app = await this.requireApp(orgName, appName);
    const expiresIn = Math.min(CONSOLE_APP_TOKEN_SECONDS, this.defaultTtlSeconds);
    const token = await this.issue(app, null, expiresIn);
    return { app, token: { access_token: token, expires_in: expiresIn, application: app.id } };
  }

  /** The password grant; `ip` is the caller's, for the back-off shared with console logins. */
  async userToken(app: ImApp, username: string, password: string, ttl: number | undefined, ip: string, admit: Admit = noAdmit): Promise<UserTokenResult> {
    const name = foldUsername(username);
    const user = await this.users.getUser(app.id, name);
    const ok = await this.passwords.attempt(`im:${app.id}:${name}`, ip, password, user?.passwordHash, {
      lane: `im:${app.id}`,
      limitedCode: 'reach_limit',
    });
    if (!user || !ok) throw new AppError('invalid_grant');
    await admit();
    const expiresIn = ttl ?? this.defaultTtlSeconds;
    const token = await this.issue(app, user.username, expiresIn);
    return { access_token: token, expires_in: expiresIn, user: imUserView(user) };
  }

  private async issue(app: ImApp, username: string | null, ttlSeconds: number): Promise<string> {
    const token = `YWMt${randomToken(32)}`;
    await this.apps.saveToken(sha256Hex(token), { appId: app.id, username, expiresAt: this.clock.now() + ttlSeconds * 1000 });
    return token;
  }

  /** Missing token: 401 unauthorized; unknown, expired or another app's: 401 auth_bad_access_token. */
  async authenticate(app: ImApp, token: string | undefined): Promise<ImPrincipal> {
    if (!token) throw new AppError('unauthorized');
    const record = await this.findToken(sha256Hex(token));
    if (!record || record.appId !== app.id || record.expiresAt <= this.clock.now()) throw new AppError('auth_bad_access_token');
    return record.username === null ? { level: 'admin' } : { level: 'user', username: record.username };
  }

  /** Whose user token this is, or why it does not hold (the msync provision tells the two apart). */
  async userOfToken(app: ImApp, token: string): Promise<{ username: string } | 'expired' | 'invalid'> {
    const record = await this.findToken(sha256Hex(token));
    if (!record || record.appId !== app.id || record.username === null) return 'invalid';
    if (record.expiresAt <= this.clock.now()) return 'expired';
    return { username: record.username };
  }

  private async findToken(hash: string): Promise<TokenRecord | undefined> {
    const now = this.clock.now();
    const cached = this.tokens.get(hash);
    if (cached && now - cached.at < TOKEN_CACHE_MS && now >= cached.at) return cached.record;
    const record = await this.apps.findToken(hash);
    if (record) {
      if (this.tokens.size >= TOKEN_CACHE_MAX) this.tokens.clear();
      this.tokens.set(hash, { record, at: now });
    }
    return record;
  }

  /** Drops cached tokens of a deleted user (their rows are deleted with the user). */
  forgetUser(appId: string, username: string): void {
    for (const [hash, { record }] of this.tokens) if (record.appId === appId && record.username === username) this.tokens.delete(hash);
  }

  purgeExpiredTokens(): Promise<number> {
    return this.apps.deleteExpiredTokens(this.clock.now());
  }
}

/**
 * Which browser origins may call an app's IM REST routes (contract 6.8, app setting
 * `allowed_origins`, default `["*"]`). The rule is pure (`corsOrigin`); the service keeps each
 * app's list cached, and a change answered on one instance applies on all at once
 * (coordination/settings-versions.ts).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { TtlCache } from '../../kernel/ttl-cache.js';
import { InProcessSettingsVersions, type SettingsScope, type SettingsVersions } from '../coordination/settings-versions.js';
import type { ImApp } from './ports.js';
import type { ImOriginsRepository } from './sdk-ports.js';

export const ANY_ORIGIN = '*';
export const DEFAULT_ORIGINS: readonly string[] = [ANY_ORIGIN];
/** At most this many entries in a list. */
export const MAX_ORIGINS = 50;
const CACHE_MS = 5_000;

/**
 * Pure: the `Access-Control-Allow-Origin` value for a request's `Origin` under an allowed list:
 * `*` when every origin is allowed, the origin itself when listed, undefined otherwise (and when
 * the request names no origin).
 */
export function corsOrigin(allowed: readonly string[], origin: string | undefined): string | undefined {
  if (allowed.includes(ANY_ORIGIN)) return ANY_ORIGIN;
  if (!origin) return undefined;
  const folded = origin.toLowerCase();
  return allowed.includes(folded) ? origin : undefined;
}

/** Pure: one entry of the list, normalised (`*`, or `scheme://host[:port]` in lower case), or why not. */
export function normaliseOrigin(entry: string): string | { problem: string } {
  const text = entry.trim();
  if (text === ANY_ORIGIN) return ANY_ORIGIN;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'is not an origin (scheme://host[:port])' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must be http or https' };
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    return { problem: 'must be an origin only, without a path, query or credentials' };
  }
  return url.origin.toLowerCase();
}

/** Pure: the whole list, deduplicated, or 400 `illegal_argument` naming the entry. */
export function normaliseOrigins(entries: readonly string[]): string[] {
  if (entries.length > MAX_ORIGINS) throw new AppError('illegal_argument', { detail: `allowed_origins: at most ${MAX_ORIGINS} entries` });
  const out: string[] = [];
  entries.forEach((entry, i) => {
    const origin = normaliseOrigin(entry);
    if (typeof origin !== 'string') throw new AppError('illegal_argument', { detail: `allowed_origins[${i}] ${origin.problem}` });
    if (!out.includes(origin)) out.push(origin);
  });
  return out;
}

export class AllowedOriginsService {
  private readonly cache: TtlCache<string, readonly string[]>;
  private readonly versions: SettingsScope;

  constructor(
    private readonly repo: ImOriginsRepository,
    private readonly clock: Clock,
    versions: SettingsVersions = new InProcessSettingsVersions(),
  ) {
    this.cache = new TtlCache(clock, CACHE_MS);
    this.versions = versions.scope('im.origins', (appId) => this.cache.delete(appId));
  }

  async of(app: ImApp): Promise<readonly string[]> {
    const checking = this.versions.check(app.id);
    if (checking) await checking;
    return this.cache.get(app.id, async () => (await this.repo.getOrigins(app.id)) ?? DEFAULT_ORIGINS);
  }

  async set(app: ImApp, entries: readonly string[]): Promise<string[]> {
    const origins = normaliseOrigins(entries);
    await this.repo.setOrigins(app.id, origins, this.clock.now());
    await this.versions.changed(app.id);
    return origins;
  }
}

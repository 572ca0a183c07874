/**
 * Read-through cache of callback settings and rules, so the per-message hook and the per-record
 * delivery do not read the database every time. Local writes invalidate it at once; a short TTL
 * bounds how long another process's change stays unseen.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { TtlCache } from '../../kernel/ttl-cache.js';
import type { Database } from '../../storage/schema.js';
import type { CallbackRule, CallbacksRepository, CallbackSettings } from './ports.js';

export interface AppEntry {
  settings: CallbackSettings;
  rules: CallbackRule[];
}

export class RuleDirectory {
  private readonly apps: TtlCache<string, AppEntry>;
  private readonly byId: TtlCache<number, CallbackRule | undefined>;

  constructor(
    private readonly repo: CallbacksRepository,
    clock: Clock,
    ttlMs = 2_000,
  ) {
    this.apps = new TtlCache(clock, ttlMs);
    this.byId = new TtlCache(clock, ttlMs);
  }

  /**
   * Settings and rules of an app. `db` is the caller's transaction when there is one: the read
   * then runs in it, on its own (see TtlCache); otherwise concurrent misses share one read.
   */
  app(appId: string, db?: Kysely<Database>): Promise<AppEntry> {
    const load = async (): Promise<AppEntry> => ({ settings: await this.repo.getSettings(appId, db), rules: await this.repo.listRules(appId, db) });
    return this.apps.get(appId, load, { share: db === undefined });
  }

  rule(id: number): Promise<CallbackRule | undefined> {
    return this.byId.get(id, () => this.repo.getRuleById(id));
  }

  /**
   * What `rule` and `app` would answer, when the cache holds it fresh: the delivery engine's
   * per-record path reads both without awaiting. Undefined when it must load.
   */
  cached(ruleId: number): { rule: CallbackRule | undefined; app: AppEntry | undefined } | undefined {
    const rule = this.byId.fresh(ruleId);
    if (!rule) return undefined;
    if (!rule.value) return { rule: undefined, app: undefined };
    const app = this.apps.fresh(rule.value.appId);
    return app ? { rule: rule.value, app: app.value } : undefined;
  }

  invalidate(appId: string, ruleId?: number): void {
    this.apps.delete(appId);
    if (ruleId !== undefined) this.byId.delete(ruleId);
    this.byId.deleteWhere((rule) => rule?.appId === appId);
  }
}

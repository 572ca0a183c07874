/**
 * Read-through cache of callback settings and rules, so the per-message hook and the per-record
 * delivery do not read the database every time. A write (`changed`) drops this instance's copies
 * at once and, with several instances, bumps the app's settings version so that every other
 * instance drops its copies before its next use (coordination/settings-versions.ts). The TTL
 * bounds the rest (a change made behind Parley's back, a bump Redis did not take).
 */
import type { Clock } from '../../kernel/clock.js';
import { TtlCache } from '../../kernel/ttl-cache.js';
import { afterCheck, InProcessSettingsVersions, type SettingsScope, type SettingsVersions } from '../coordination/settings-versions.js';
import type { CallbackRule, CallbacksRepository, CallbackSettings } from './ports.js';

export interface AppEntry {
  settings: CallbackSettings;
  rules: CallbackRule[];
}

export class RuleDirectory {
  private readonly apps: TtlCache<string, AppEntry>;
  private readonly byId: TtlCache<number, CallbackRule | undefined>;
  /** The app of each rule seen (a rule never moves to another app): the scope to check before using it. */
  private readonly appOfRule = new Map<number, string>();
  private readonly versions: SettingsScope;
  private readonly shared: boolean;

  constructor(
    private readonly repo: CallbacksRepository,
    clock: Clock,
    ttlMs = 2_000,
    versions: SettingsVersions = new InProcessSettingsVersions(),
  ) {
    this.apps = new TtlCache(clock, ttlMs);
    this.byId = new TtlCache(clock, ttlMs);
    this.versions = versions.scope('callbacks', (appId) => this.drop(appId));
    this.shared = versions.shared;
  }

  /** Settings and rules of an app; concurrent misses share one read. */
  app(appId: string): Promise<AppEntry> {
    return afterCheck(this.versions.check(appId), () => this.loadApp(appId));
  }

  rule(id: number): Promise<CallbackRule | undefined> {
    return afterCheck(this.check(id), () => this.loadRule(id));
  }

  /** `app` without the version check, for a caller that has just made it (`check`). */
  loadApp(appId: string): Promise<AppEntry> {
    const load = async (): Promise<AppEntry> => ({ settings: await this.repo.getSettings(appId), rules: await this.repo.listRules(appId) });
    return this.apps.get(appId, load);
  }

  /** `rule` without the version check, for a caller that has just made it (`check`). */
  loadRule(id: number): Promise<CallbackRule | undefined> {
    return this.byId.get(id, async () => {
      const rule = await this.repo.getRuleById(id);
      if (rule) this.remember(rule);
      return rule;
    });
  }

  /**
   * With several instances, resolves once the cached rule `id` and its app are current (the
   * delivery engine calls it before `cached`); `undefined` in one process, where they always are.
   */
  check(ruleId: number): Promise<void> | undefined {
    const appId = this.appOfRule.get(ruleId);
    if (appId !== undefined) return this.versions.check(appId);
    // The rule's app is not known yet: read the rule to learn it, then check the app.
    return this.learnApp(ruleId);
  }

  private learnApp(ruleId: number): Promise<void> | undefined {
    if (!this.shared) return undefined;
    return this.repo.getRuleById(ruleId).then(async (rule) => {
      if (!rule) return;
      this.remember(rule);
      // Kept for the caller's next read; the check below drops it again if the app changed.
      this.byId.set(rule.id, rule);
      await this.versions.check(rule.appId);
    });
  }

  private remember(rule: CallbackRule): void {
    if (this.appOfRule.size >= 10_000) this.appOfRule.clear();
    this.appOfRule.set(rule.id, rule.appId);
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

  /**
   * After a write of the app's settings or rules has committed, before answering it: from then
   * on no instance uses the old values (see SettingsScope.changed).
   */
  async changed(appId: string, ruleId?: number): Promise<void> {
    if (ruleId !== undefined) this.byId.delete(ruleId);
    await this.versions.changed(appId);
  }

  /** Forgets this instance's copies of an app's settings and rules. */
  private drop(appId: string): void {
    this.apps.delete(appId);
    this.byId.deleteWhere((rule) => rule?.appId === appId);
  }
}

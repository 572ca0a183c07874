/**
 * Read-through cache of callback settings and rules, so the per-message hook and the per-record
 * delivery do not read the database every time. Local writes invalidate it at once; a short TTL
 * bounds how long another process's change stays unseen.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import type { Database } from '../../storage/schema.js';
import type { CallbackRule, CallbacksRepository, CallbackSettings } from './ports.js';

interface AppEntry {
  settings: CallbackSettings;
  rules: CallbackRule[];
  loadedAt: number;
}

export class RuleDirectory {
  private readonly apps = new Map<string, AppEntry>();
  private readonly byId = new Map<number, { rule: CallbackRule | undefined; loadedAt: number }>();

  constructor(
    private readonly repo: CallbacksRepository,
    private readonly clock: Clock,
    private readonly ttlMs = 2_000,
  ) {}

  /** Settings and rules of an app; `db` is the caller's transaction when there is one. */
  async app(appId: string, db?: Kysely<Database>): Promise<AppEntry> {
    const now = this.clock.now();
    const hit = this.apps.get(appId);
    if (hit && now - hit.loadedAt < this.ttlMs && now >= hit.loadedAt) return hit;
    const [settings, rules] = [await this.repo.getSettings(appId, db), await this.repo.listRules(appId, db)];
    const entry = { settings, rules, loadedAt: now };
    this.apps.set(appId, entry);
    for (const rule of rules) this.byId.set(rule.id, { rule, loadedAt: now });
    return entry;
  }

  async rule(id: number): Promise<CallbackRule | undefined> {
    const now = this.clock.now();
    const hit = this.byId.get(id);
    if (hit && now - hit.loadedAt < this.ttlMs && now >= hit.loadedAt) return hit.rule;
    const rule = await this.repo.getRuleById(id);
    this.byId.set(id, { rule, loadedAt: now });
    return rule;
  }

  invalidate(appId: string, ruleId?: number): void {
    this.apps.delete(appId);
    if (ruleId !== undefined) this.byId.delete(ruleId);
    for (const [id, entry] of this.byId) if (entry.rule?.appId === appId) this.byId.delete(id);
  }
}

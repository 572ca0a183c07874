/**
 * The pre-send rules of each app, read on every message and written rarely: cached per app for
 * a few seconds, dropped at once on every instance after a change (coordination/settings-versions.ts).
 */
import type { Clock } from '../../../kernel/clock.js';
import { InProcessSettingsVersions, type SettingsScope, type SettingsVersions } from '../../coordination/settings-versions.js';
import type { PresendRule, PresendRulesRepository } from './ports.js';

export class PresendRulesCache {
  private readonly cache = new Map<string, { rules: PresendRule[]; at: number }>();
  private readonly versions: SettingsScope;

  constructor(
    private readonly repo: Pick<PresendRulesRepository, 'listPresendRules'>,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    versions: SettingsVersions = new InProcessSettingsVersions(),
  ) {
    this.versions = versions.scope('callbacks.presend', (appId) => this.cache.delete(appId));
  }

  async rules(appId: string): Promise<PresendRule[]> {
    const checking = this.versions.check(appId);
    if (checking) await checking;
    const now = this.clock.now();
    const cached = this.cache.get(appId);
    if (cached && now - cached.at < this.ttlMs && now >= cached.at) return cached.rules;
    const rules = await this.repo.listPresendRules(appId);
    this.cache.set(appId, { rules, at: now });
    return rules;
  }

  /** After a committed write of the app's rules, before answering it. */
  changed(appId: string): Promise<void> {
    return this.versions.changed(appId);
  }
}

/**
 * Domain types and the storage port of the pre-send callback (contract 6.5).
 */
import type { PresendChatType, PresendMessageType, PresendOnFailure } from '@parley/protocol';

export interface PresendRule {
  id: number;
  appId: string;
  name: string;
  url: string;
  timeoutMs: number;
  onFailure: PresendOnFailure;
  chatTypes: PresendChatType[];
  messageTypes: PresendMessageType[];
  /** Never logged; returned only to the app's admin. */
  secret: string;
  createdAt: number;
  updatedAt: number;
}

export type NewPresendRule = Omit<PresendRule, 'id' | 'createdAt' | 'updatedAt'>;

export type PresendRulePatch = Partial<Pick<PresendRule, 'url' | 'timeoutMs' | 'onFailure' | 'chatTypes' | 'messageTypes' | 'secret'>>;

export type CreatePresendRuleResult = { ok: true; rule: PresendRule } | { ok: false; reason: 'duplicate_name' | 'limit_reached' };

/** Storage port. Every method is atomic. */
export interface PresendRulesRepository {
  /** The app's rules in creation order (the order they are called in). */
  listPresendRules(appId: string): Promise<PresendRule[]>;
  getPresendRule(appId: string, name: string): Promise<PresendRule | undefined>;
  /** At most MAX_PRESEND_RULES per app, names unique per app. */
  createPresendRule(input: NewPresendRule, now: number): Promise<CreatePresendRuleResult>;
  updatePresendRule(appId: string, name: string, patch: PresendRulePatch, now: number): Promise<PresendRule | undefined>;
  deletePresendRule(appId: string, name: string): Promise<boolean>;
}

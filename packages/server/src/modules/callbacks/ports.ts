/**
 * Domain types and the storage port of the callbacks module.
 */
import type { SecretOverlap } from '../../kernel/secret-overlap.js';
import type { TransactionJobs } from '../jobs/ports.js';
import type { BanState } from './ban.js';
import type { RuleFilters, UnsignedRecord } from './record.js';

export type { RuleFilters };

export interface CallbackRule extends RuleFilters {
  id: number;
  appId: string;
  name: string;
  url: string;
  enabled: boolean;
  secret: string;
  /** The secret before the last rotation while it may still be valid (contract 6.6); absent or null: none. */
  previousSecret?: SecretOverlap<string> | null;
  /** Re-send the records stored during a ban when it ends (absent: false). */
  redrive?: boolean;
  ban: BanState;
  createdAt: number;
  updatedAt: number;
}

export interface CallbackSettings {
  appId: string;
  enabled: boolean;
  storeFailed: boolean;
}

export interface NewRule extends RuleFilters {
  appId: string;
  name: string;
  url: string;
  enabled: boolean;
  secret: string;
  redrive?: boolean;
}

export type RulePatch = Partial<Pick<CallbackRule, 'url' | 'enabled' | 'secret' | 'previousSecret' | 'redrive' | 'eventTypes' | 'chatTypes' | 'messageTypes' | 'sources'>>;

export type CreateRuleResult = { ok: true; rule: CallbackRule } | { ok: false; reason: 'duplicate_name' | 'limit_reached' };

export interface NewStoredRecord {
  appId: string;
  dateKey: string;
  ruleId: number | null;
  ruleName: string;
  record: UnsignedRecord;
  /** The record's event type and the message it is about (record.ts `recordFacts`). */
  eventType: string;
  msgId: string;
  lastError: string;
}

/** How a record's last re-send ended, and when (ms). */
export type ResendOutcome = { result: 'success'; at: number } | { result: 'failure'; at: number; error: string };

export interface StoredRecord extends NewStoredRecord {
  id: number;
  storedAt: number;
  /** Null until the record is re-sent. */
  lastResend: { result: 'success' | 'failure'; at: number } | null;
}

export interface StoredKey {
  date: string;
  size: number;
  retry: number;
}

/** A key whose first records near their deletion (`store.expiring`, contract 6.7). */
export interface ExpiringKey {
  appId: string;
  date: string;
  size: number;
  firstStoredAt: number;
}

/** Storage port. Every method is atomic. */
export interface CallbacksRepository {
  /** Settings of an app; an app never configured is disabled with the store off. */
  getSettings(appId: string): Promise<CallbackSettings>;
  putSettings(appId: string, patch: { enabled?: boolean; storeFailed?: boolean }, now: number): Promise<CallbackSettings>;

  listRules(appId: string): Promise<CallbackRule[]>;
  allRuleIds(): Promise<number[]>;
  getRule(appId: string, name: string): Promise<CallbackRule | undefined>;
  getRuleById(id: number): Promise<CallbackRule | undefined>;
  /** At most MAX_CALLBACK_RULES per app, names unique per app. */
  createRule(input: NewRule, now: number): Promise<CreateRuleResult>;
  updateRule(appId: string, name: string, patch: RulePatch, now: number): Promise<CallbackRule | undefined>;
  deleteRule(appId: string, name: string): Promise<boolean>;
  /** Persists the ban machine's state (and its visible columns). */
  saveBanState(ruleId: number, state: BanState, now: number): Promise<void>;

  storeRecords(records: NewStoredRecord[], now: number): Promise<void>;
  /** Keys of the app with records, ascending, with their size and re-send count. */
  storedKeys(appId: string): Promise<StoredKey[]>;
  /** Up to `limit` records of a key with an id above `afterId`, in id order (keyset paging). */
  storedPage(appId: string, dateKey: string, afterId: number, limit: number): Promise<StoredRecord[]>;
  /** Adds one to the key's re-send count; returns the new count. */
  bumpKeyRetry(appId: string, dateKey: string, now: number): Promise<number>;
  /** Records a re-send's outcome; a failure also replaces the last error, a success keeps it. */
  noteResend(id: number, outcome: ResendOutcome): Promise<void>;
  /** Deletes records stored at or before `cutoff` and keys left empty, a chunk per transaction; returns records deleted. */
  deleteStoredUpTo(cutoff: number): Promise<number>;
  /** Up to `limit` keys holding records, the first stored at or before `cutoff`, not yet noticed as expiring; oldest first. */
  expiringKeys(cutoff: number, limit: number): Promise<ExpiringKey[]>;
  /** Marks a key noticed as expiring; false when it already was (by another instance, or an earlier run). */
  markExpiringNoticed(appId: string, dateKey: string, now: number): Promise<boolean>;
}

/** What a callbacks transaction holds: the exception store's key reads and writes, and its jobs. */
export interface CallbacksTransaction {
  readonly callbacks: Pick<CallbacksRepository, 'storedPage' | 'bumpKeyRetry' | 'markExpiringNoticed'>;
  readonly jobs: TransactionJobs;
}

/**
 * What the callback endpoints do (contract 4.4, 4.6): the app's switches, its rules, and the
 * exception store's info, re-send and listing. HTTP-free; throws AppError for client errors.
 */
import {
  DEFAULT_SECRET_OVERLAP_SECONDS,
  CALLBACK_CHAT_TYPES,
  DEFAULT_CALLBACK_EVENT_TYPES,
  CALLBACK_MESSAGE_TYPES,
  CALLBACK_SOURCES,
  MAX_CALLBACK_RULES,
  STORED_RECORDS_DEFAULT_LIMIT,
  STORED_RECORDS_MAX_LIMIT,
  isValidDateKey,
  type CallbackRuleView,
  type CallbackServiceSettings,
  type CallbackTestResult,
  type CreateCallbackRuleRequest,
  type StorageRetryRequest,
  type StoredRecordsQuery,
  type StoredKeyInfo,
  type StoredRecordView,
  type UpdateCallbackRuleRequest,
} from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';
import { randomHex } from '../../kernel/ids.js';
import { liveOverlap, overlapAfterRotation } from '../../kernel/secret-overlap.js';
import { RESEND_QUEUE, resendOrderingKey, type CallbacksCore, type ResendPayload } from './delivery.js';
import type { CallbackRule, RulePatch } from './ports.js';
import { redriveKeys, redriveWindow } from './redrive.js';
import { decodeStoreCursor, encodeStoreCursor } from './store-cursor.js';
import { sendTestRecord } from './test-record.js';

/** A new rule secret: 32 lower-case hex characters (128 bits). */
export const newRuleSecret = (): string => randomHex(16);

/** The app a call is about, as the IM routes know it. */
export interface AppRef {
  id: string;
  orgName: string;
  appName: string;
}

export class CallbacksService {
  constructor(
    private readonly deps: CallbacksCore & { retentionMs: number; dateKeyZone: string; attemptTimeoutMs: number },
  ) {}

  async settings(appId: string): Promise<CallbackServiceSettings> {
    const s = await this.deps.repo.getSettings(appId);
    return { enabled: s.enabled, store_failed: s.storeFailed };
  }

  async updateSettings(appId: string, patch: { enabled?: boolean; store_failed?: boolean }): Promise<CallbackServiceSettings> {
    const s = await this.deps.repo.putSettings(appId, { enabled: patch.enabled, storeFailed: patch.store_failed }, this.deps.clock.now());
    await this.deps.directory.changed(appId);
    return { enabled: s.enabled, store_failed: s.storeFailed };
  }

  async view(rule: CallbackRule): Promise<CallbackRuleView> {
    const ban = await this.deps.bans.viewOf(rule);
    return {
      name: rule.name,
      url: rule.url,
      enabled: rule.enabled,
      event_types: rule.eventTypes,
      chat_types: rule.chatTypes,
      message_types: rule.messageTypes,
      sources: rule.sources,
      secret: rule.secret,
      status: ban.status,
      ban_count: ban.banCount,
      banned_until: ban.bannedUntil,
      redrive: rule.redrive === true,
      previous_secret_expires_at: liveOverlap(rule.previousSecret, this.deps.clock.now())?.until ?? null,
    };
  }

  async listRules(appId: string): Promise<CallbackRuleView[]> {
    return Promise.all((await this.deps.repo.listRules(appId)).map((r) => this.view(r)));
  }

  async rule(appId: string, name: string): Promise<CallbackRule> {
    const rule = await this.deps.repo.getRule(appId, name);
    if (!rule) throw new AppError('service_resource_not_found', { resource: `callback rule ${name}` });
    return rule;
  }

  async createRule(appId: string, body: CreateCallbackRuleRequest): Promise<CallbackRuleView> {
    await this.deps.outbound.assertAllowedUrl(body.url);
    const result = await this.deps.repo.createRule(
      {
        appId,
        name: body.name,
        url: body.url,
        enabled: body.enabled ?? true,
        eventTypes: body.event_types ?? [...DEFAULT_CALLBACK_EVENT_TYPES],
        chatTypes: body.chat_types ?? [...CALLBACK_CHAT_TYPES],
        messageTypes: body.message_types ?? [...CALLBACK_MESSAGE_TYPES],
        sources: body.sources ?? [...CALLBACK_SOURCES],
        secret: newRuleSecret(),
        redrive: body.redrive ?? false,
      },
      this.deps.clock.now(),
    );
    if (!result.ok) {
      if (result.reason === 'duplicate_name') throw new AppError('conflict', { resource: 'callback rule', detail: body.name });
      throw new AppError('callback_rule_limit', { max: MAX_CALLBACK_RULES });
    }
    await this.deps.directory.changed(appId);
    return this.view(result.rule);
  }

  async updateRule(appId: string, name: string, body: UpdateCallbackRuleRequest): Promise<CallbackRuleView> {
    if (body.url !== undefined) await this.deps.outbound.assertAllowedUrl(body.url);
    const rule = await this.deps.repo.updateRule(
      appId,
      name,
      {
        url: body.url,
        enabled: body.enabled,
        eventTypes: body.event_types,
        chatTypes: body.chat_types,
        messageTypes: body.message_types,
        sources: body.sources,
        redrive: body.redrive,
      },
      this.deps.clock.now(),
    );
    if (!rule) throw new AppError('service_resource_not_found', { resource: `callback rule ${name}` });
    await this.deps.directory.changed(appId, rule.id);
    return this.view(rule);
  }

  /**
   * A new rule secret; the one it replaces still signs beside it for `overlapSeconds` (contract
   * 6.6; 0: not at all). A rotation during an overlap drops the older secret.
   */
  async rotateSecret(appId: string, name: string, overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS): Promise<CallbackRuleView> {
    const current = await this.rule(appId, name);
    const now = this.deps.clock.now();
    return this.saveSecrets(appId, name, { secret: newRuleSecret(), previousSecret: overlapAfterRotation(current.secret, overlapSeconds, now) }, now);
  }

  /** Ends a rotation's overlap early: records are signed with the current secret only. */
  async endOverlap(appId: string, name: string): Promise<CallbackRuleView> {
    return this.saveSecrets(appId, name, { previousSecret: null }, this.deps.clock.now());
  }

  private async saveSecrets(appId: string, name: string, patch: Pick<RulePatch, 'secret' | 'previousSecret'>, now: number): Promise<CallbackRuleView> {
    const rule = await this.deps.repo.updateRule(appId, name, patch, now);
    if (!rule) throw new AppError('service_resource_not_found', { resource: `callback rule ${name}` });
    await this.deps.directory.changed(appId, rule.id);
    return this.view(rule);
  }

  /** Sends a test record to the rule now and answers what was sent and what came back (test-record.ts). */
  async testRule(app: AppRef, name: string): Promise<CallbackTestResult> {
    const rule = await this.rule(app.id, name);
    const deps = { outbound: this.deps.outbound, clock: this.deps.clock, timeoutMs: this.deps.attemptTimeoutMs };
    return sendTestRecord(deps, `${app.orgName}#${app.appName}`, rule);
  }

  async deleteRule(appId: string, name: string): Promise<void> {
    const rule = await this.rule(appId, name);
    await this.deps.repo.deleteRule(appId, name);
    await this.deps.bans.forget(rule.id);
    await this.deps.directory.changed(appId, rule.id);
  }

  /** 403 unless the app's callback service is enabled (contract 4.6); the refusal says how to turn it on. */
  async assertEnabled(app: AppRef): Promise<void> {
    const s = await this.deps.repo.getSettings(app.id);
    if (!s.enabled) throw new AppError('callback_service_disabled', { org: app.orgName, app: app.appName });
  }

  /** IANA zone of the exception store's date keys. */
  get dateKeyZone(): string {
    return this.deps.dateKeyZone;
  }

  async storageInfo(app: AppRef): Promise<StoredKeyInfo[]> {
    await this.assertEnabled(app);
    return this.deps.repo.storedKeys(app.id);
  }

  private assertDateKey(date: string): void {
    if (!isValidDateKey(date)) {
      throw new AppError('illegal_argument', { detail: `date must be a yyyyMMddHHmm key on a 10-minute boundary (got "${date}")` });
    }
  }

  /**
   * Starts an asynchronous re-send of a key: 'success' when it has records (its retry count goes
   * up and a resend job is queued in the same transaction), 'failure' when it has none.
   */
  async retry(app: AppRef, body: StorageRetryRequest): Promise<'success' | 'failure'> {
    await this.assertEnabled(app);
    const appId = app.id;
    this.assertDateKey(body.date);
    const targetUrl = body.targetUrl?.trim() || undefined;
    if (targetUrl) await this.deps.outbound.assertAllowedUrl(targetUrl);
    const now = this.deps.clock.now();
    const started = await this.deps.uow.run(async (tx) => {
      if ((await tx.callbacks.storedPage(appId, body.date, 0, 1)).length === 0) return false;
      await tx.callbacks.bumpKeyRetry(appId, body.date, now);
      const payload: ResendPayload = { appId, dateKey: body.date, ...(targetUrl ? { targetUrl } : {}) };
      await tx.jobs.enqueue({ queue: RESEND_QUEUE, payload, orderingKey: resendOrderingKey(appId) });
      return true;
    });
    if (started) this.deps.jobs.notify(RESEND_QUEUE);
    return started ? 'success' : 'failure';
  }

  /**
   * Re-drive after a ban (opt-in per rule): when the rule's ban ended at `unbannedAt`, the records
   * stored during it are re-sent in order, paced as any re-send; each key holding some has its
   * retry count go up, as for a manual re-send. Answers the keys re-sent (none when the rule does
   * not re-drive or stored nothing). `lateByMs`: how late the ban's end may have been noticed.
   */
  async redrive(ban: { ruleId: number; appId: string; at: number; banCount: number }, lateByMs: number): Promise<string[]> {
    const rule = await this.deps.repo.getRuleById(ban.ruleId);
    if (!rule?.redrive) return [];
    const window = redriveWindow(rule.id, ban.at, ban.banCount, lateByMs);
    const wanted = new Set(redriveKeys(window, this.deps.dateKeyZone));
    const keys = (await this.deps.repo.storedKeys(ban.appId)).map((k) => k.date).filter((k) => wanted.has(k));
    if (keys.length === 0) return [];
    const now = this.deps.clock.now();
    await this.deps.uow.run(async (tx) => {
      for (const key of keys) {
        await tx.callbacks.bumpKeyRetry(ban.appId, key, now);
        const payload: ResendPayload = { appId: ban.appId, dateKey: key, redrive: window };
        await tx.jobs.enqueue({ queue: RESEND_QUEUE, payload, orderingKey: resendOrderingKey(ban.appId) });
      }
    });
    this.deps.jobs.notify(RESEND_QUEUE);
    return keys;
  }

  /**
   * One page of a key's records in storage order, at most `limit` (default 100, at most 1,000);
   * `cursor` is set when more may follow and continues after the last record returned.
   */
  async storedRecords(app: AppRef, date: string, query: StoredRecordsQuery = {}): Promise<{ entities: StoredRecordView[]; cursor?: string }> {
    await this.assertEnabled(app);
    const appId = app.id;
    this.assertDateKey(date);
    const limit = query.limit ?? STORED_RECORDS_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > STORED_RECORDS_MAX_LIMIT) {
      throw new AppError('illegal_argument', { detail: `limit must be an integer from 1 to ${STORED_RECORDS_MAX_LIMIT}` });
    }
    const afterId = query.cursor === undefined ? 0 : decodeStoreCursor(query.cursor, date);
    // One row more than asked tells whether another page follows without a second query.
    const records = await this.deps.repo.storedPage(appId, date, afterId, limit + 1);
    const page = records.slice(0, limit);
    const entities = page.map((r) => ({
      callId: r.record.callId,
      rule: r.ruleName,
      eventType: r.eventType as StoredRecordView['eventType'],
      msg_id: r.msgId,
      stored_at: r.storedAt,
      last_error: r.lastError,
      last_resend: r.lastResend,
      record: r.record as unknown as Record<string, unknown>,
    }));
    const last = page[page.length - 1];
    return records.length > limit && last ? { entities, cursor: encodeStoreCursor(date, last.id) } : { entities };
  }

  /** Deletes records older than the retention (3 days by default); returns how many. */
  async sweepExpired(): Promise<number> {
    return this.deps.repo.deleteStoredUpTo(this.deps.clock.now() - this.deps.retentionMs);
  }
}

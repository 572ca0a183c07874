/**
 * What the callbacks engine tells an app's operators (contract 6.7): a rule's ban with its reason
 * and the last errors seen before it, the ban's end, and exception-store keys one day from
 * expiry. Bans come from the ban store's events, emitted once across instances; a key's notice
 * is raised in the transaction that marks the key noticed, so it is raised once, by one instance.
 */
import type { Clock } from '../../kernel/clock.js';
import { expiringCutoff } from '../operations/policy.js';
import type { OperatorAlerts } from '../operations/raise.js';
import type { CallbackEvents } from './events.js';
import type { CallbacksRepository, CallbacksTransaction } from './ports.js';

/** Errors kept per rule for `last_errors`. */
export const LAST_ERRORS = 5;
/** Keys looked at per run of the expiry check. */
const EXPIRING_BATCH = 500;

const OVERLONG_ERROR = 'over-long answer: a 200 with a body over 1,000 characters';

export interface NoticeError {
  at: number;
  error: string;
}

export class OperatorNotices {
  /** The latest failed or over-long attempts of each rule on this instance, newest last. */
  private readonly lastErrors = new Map<number, NoticeError[]>();

  constructor(
    private readonly alerts: OperatorAlerts<CallbacksTransaction>,
    private readonly repo: Pick<CallbacksRepository, 'expiringKeys'>,
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  /** Subscribes to the engine's events; answers itself. */
  observe(events: CallbackEvents): this {
    events.on('attempt.finished', (e) => {
      if (e.resend || e.outcome === 'success') return;
      const list = this.lastErrors.get(e.ruleId) ?? [];
      list.push({ at: this.clock.now(), error: e.outcome === 'overlong' ? OVERLONG_ERROR : (e.error ?? 'failed') });
      if (list.length > LAST_ERRORS) list.shift();
      this.lastErrors.set(e.ruleId, list);
    });
    events.on('rule.banned', (e) => {
      const lastErrors = [...(this.lastErrors.get(e.ruleId) ?? [])].reverse();
      this.lastErrors.delete(e.ruleId);
      this.alerts.raise(
        { scope: 'app', id: e.appId },
        {
          type: 'rule.banned',
          data: { rule: e.rule, reason: e.reason, ban_count: e.banCount, banned_until: e.bannedUntil, last_errors: lastErrors },
          dedupeKey: `rule.banned:${e.ruleId}:${e.bannedUntil}`,
        },
      );
    });
    events.on('rule.unbanned', (e) => {
      // Attempts that were in flight when the ban began belong to no later ban.
      this.lastErrors.delete(e.ruleId);
      this.alerts.raise({ scope: 'app', id: e.appId }, { type: 'rule.unbanned', data: { rule: e.rule, ban_count: e.banCount } });
    });
    return this;
  }

  /** Raises `store.expiring` for each key whose first records are deleted within a day; answers how many. Run on one instance. */
  async noticeExpiring(): Promise<number> {
    const now = this.clock.now();
    let raised = 0;
    for (const key of await this.repo.expiringKeys(expiringCutoff(now, this.retentionMs), EXPIRING_BATCH)) {
      const done = await this.alerts.within(async (tx, raise) => {
        if (!(await tx.callbacks.markExpiringNoticed(key.appId, key.date, now))) return false;
        return raise(
          { scope: 'app', id: key.appId },
          { type: 'store.expiring', data: { date: key.date, size: key.size, expires_at: key.firstStoredAt + this.retentionMs }, dedupeKey: `store.expiring:${key.date}` },
        );
      });
      if (done) raised++;
    }
    return raised;
  }
}

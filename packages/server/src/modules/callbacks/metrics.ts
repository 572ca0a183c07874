/**
 * Prometheus metrics and log lines of the callbacks engine, fed from its events.
 */
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallbackEvents } from './events.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function observeCallbacks(events: CallbackEvents, registry: Registry, logger: Pick<Logger, 'warn' | 'info'>): void {
  const records = new Counter({
    name: 'parley_callback_records_total',
    help: 'Callback records by final result: succeeded, overlong (200 over 1,000 characters), stored, dropped',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const attempts = new Histogram({
    name: 'parley_callback_attempt_duration_seconds',
    help: 'Latency of one callback HTTP attempt by outcome (success, overlong, failure) and kind (live, resend)',
    labelNames: ['outcome', 'kind'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const endToEnd = new Histogram({
    name: 'parley_callback_end_to_end_seconds',
    help: 'Message receipt to the 200 of its callback',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stored = new Counter({
    name: 'parley_callback_stored_total',
    help: 'Records put into the exception store, by reason (failed, banned)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const bans = new Counter({
    name: 'parley_callback_rule_bans_total',
    help: 'Rule bans by reason (failures, overlong)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const unbans = new Counter({ name: 'parley_callback_rule_unbans_total', help: 'Rules back to active after a ban', registers: [registry] });

  events.on('attempt.finished', (e) => attempts.observe({ outcome: e.outcome, kind: e.resend ? 'resend' : 'live' }, e.latencyMs / 1000));
  events.on('record.finished', (e) => {
    records.inc({ result: e.result });
    if (e.result === 'stored') stored.inc({ reason: e.reason ?? 'failed' });
    if (e.endToEndMs !== undefined) endToEnd.observe(Math.max(0, e.endToEndMs) / 1000);
  });
  events.on('rule.banned', (e) => {
    bans.inc({ reason: e.reason });
    logger.warn(
      { event: 'rule.banned', appId: e.appId, rule: e.rule, banCount: e.banCount, bannedUntil: new Date(e.bannedUntil).toISOString(), reason: e.reason },
      `callback rule ${e.rule} banned for ${e.durationMs / 60_000} min (${e.reason})`,
    );
  });
  events.on('rule.unbanned', (e) => {
    unbans.inc();
    logger.info({ event: 'rule.unbanned', appId: e.appId, rule: e.rule, banCount: e.banCount }, `callback rule ${e.rule} active again`);
  });
}

/** Engine events become metrics and exactly one log line per ban (issue 5, observability). */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CallbackEvents } from '../../src/modules/callbacks/events.js';
import { observeCallbacks } from '../../src/modules/callbacks/metrics.js';

describe('callback metrics and ban logs', () => {
  it('logs one warn line per ban, one info line per unban, and counts results and latencies', async () => {
    const events = new CallbackEvents();
    const registry = new Registry();
    const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
    const logger = {
      warn: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', obj, msg }),
      info: (obj: Record<string, unknown>, msg: string) => lines.push({ level: 'info', obj, msg }),
    };
    observeCallbacks(events, registry, logger as never);
    const ref = { ruleId: 7, appId: 'app-1', rule: 'main' };
    const until = Date.UTC(2026, 10, 21, 12, 10);
    events.emit('rule.banned', { ...ref, type: 'rule.banned', at: until - 600_000, banCount: 2, bannedUntil: until, durationMs: 600_000, reason: 'overlong' });
    events.emit('rule.unbanned', { ...ref, type: 'rule.unbanned', at: until, banCount: 2 });
    events.emit('record.finished', { ...ref, result: 'succeeded', endToEndMs: 12 });
    events.emit('record.finished', { ...ref, result: 'stored', reason: 'banned' });
    events.emit('attempt.finished', { ...ref, outcome: 'failure', latencyMs: 3, resend: false });

    expect(lines).toEqual([
      {
        level: 'warn',
        obj: { event: 'rule.banned', appId: 'app-1', rule: 'main', banCount: 2, bannedUntil: '2026-11-21T12:10:00.000Z', reason: 'overlong' },
        msg: 'callback rule main banned for 10 min (overlong)',
      },
      { level: 'info', obj: { event: 'rule.unbanned', appId: 'app-1', rule: 'main', banCount: 2 }, msg: 'callback rule main active again' },
    ]);
    const text = await registry.metrics();
    expect(text).toContain('parley_callback_rule_bans_total{reason="overlong"} 1');
    expect(text).toContain('parley_callback_rule_unbans_total 1');
    expect(text).toContain('parley_callback_records_total{result="succeeded"} 1');
    expect(text).toContain('parley_callback_stored_total{reason="banned"} 1');
    expect(text).toContain('parley_callback_end_to_end_seconds_count 1');
    expect(text).toContain('parley_callback_attempt_duration_seconds_count{outcome="failure",kind="live"} 1');
  });
});

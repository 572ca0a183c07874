/**
 * The ban state machine, row by row of spec section 3 ("Callback-rule ban") and the duration
 * paragraph under it, with time passed in (no timers).
 */
import { describe, expect, it } from 'vitest';
import {
  BAN_THRESHOLD,
  BAN_WINDOW_MS,
  banDurationMs,
  expireBan,
  initialBanState,
  isBanned,
  observe,
  parseBanState,
  type BanEvent,
  type BanObservation,
  type BanState,
} from '../../src/modules/callbacks/ban.js';
import { loadCallbackVectors } from '../../../protocol/test/callback-vectors.js';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

/** Feeds `n` observations spaced `gapMs` apart from `start`; returns the state and all events. */
function feed(state: BanState, kind: BanObservation, n: number, start: number, gapMs = 100) {
  const events: BanEvent[] = [];
  let s = state;
  for (let i = 0; i < n; i++) {
    const step = observe(s, kind, start + i * gapMs);
    s = step.state;
    events.push(...step.events);
  }
  return { state: s, events, last: start + (n - 1) * gapMs };
}

/** Bans the rule with 90 failures starting at `start`; returns the state and the ban event. */
function banAt(state: BanState, start: number) {
  const r = feed(state, 'failure', BAN_THRESHOLD, start, 10);
  const ban = r.events.find((e) => e.type === 'rule.banned');
  if (!ban || ban.type !== 'rule.banned') throw new Error('expected a ban');
  return { state: r.state, ban, at: r.last };
}

describe('row 1: active --90 failures within 30 s--> banned, ban count + 1', () => {
  it('89 failures in 30 s keep the rule active; the 90th bans it', () => {
    const r89 = feed(initialBanState(), 'failure', 89, T0);
    expect(r89.state.status).toBe('active');
    expect(r89.events).toEqual([]);
    const step = observe(r89.state, 'failure', r89.last + 100);
    expect(step.state.status).toBe('banned');
    expect(step.state.banCount).toBe(1);
    expect(step.state.bannedUntil).toBe(r89.last + 100 + 5 * MIN);
    expect(step.events).toEqual([
      { type: 'rule.banned', at: r89.last + 100, banCount: 1, bannedUntil: r89.last + 100 + 5 * MIN, durationMs: 5 * MIN, reason: 'failures' },
    ]);
  });

  it('the window slides: 90 failures spread over more than 30 s do not ban', () => {
    // One failure every 340 ms: 90 of them span 30.26 s, so no 30 s window holds 90.
    const r = feed(initialBanState(), 'failure', 300, T0, 340);
    expect(r.state.status).toBe('active');
    expect(r.events).toEqual([]);
    expect(r.state.failures.length).toBeLessThan(BAN_THRESHOLD);
  });

  it('an event exactly 30 s old has left the window; 1 ms younger it counts', () => {
    let s = observe(initialBanState(), 'failure', T0).state;
    s = feed(s, 'failure', 88, T0 + BAN_WINDOW_MS - 88, 1).state; // 89 within (T0, T0+30s)
    expect(observe(s, 'failure', T0 + BAN_WINDOW_MS).state.status).toBe('active');
    expect(observe(s, 'failure', T0 + BAN_WINDOW_MS - 1).state.status).toBe('banned');
  });

  it('a burst after a quiet period counts only recent failures', () => {
    let s = feed(initialBanState(), 'failure', 80, T0, 10).state;
    s = feed(s, 'failure', 80, T0 + 60_000, 10).state;
    expect(s.status).toBe('active');
    expect(s.failures).toHaveLength(80);
  });

  it('over-long answers and failures are counted separately', () => {
    let s = feed(initialBanState(), 'failure', 89, T0, 10).state;
    s = feed(s, 'overlong', 89, T0 + 1000, 10).state;
    expect(s.status).toBe('active');
  });
});

describe('row 2: active --90 over-long answers within 30 s--> banned', () => {
  it('bans on the 90th over-long answer with reason overlong', () => {
    const r = feed(initialBanState(), 'overlong', 90, T0, 50);
    expect(r.state.status).toBe('banned');
    expect(r.state.banCount).toBe(1);
    expect(r.events).toEqual([
      { type: 'rule.banned', at: r.last, banCount: 1, bannedUntil: r.last + 5 * MIN, durationMs: 5 * MIN, reason: 'overlong' },
    ]);
  });

  it('89 over-long answers do not ban', () => {
    expect(feed(initialBanState(), 'overlong', 89, T0, 50).state.status).toBe('active');
  });
});

describe('row 3: banned --duration elapses--> active', () => {
  it('stays banned until bannedUntil, then emits rule.unbanned', () => {
    const { state, ban } = banAt(initialBanState(), T0);
    expect(isBanned(state, ban.bannedUntil - 1)).toBe(true);
    expect(expireBan(state, ban.bannedUntil - 1)).toEqual({ state, events: [] });
    const step = expireBan(state, ban.bannedUntil);
    expect(step.state.status).toBe('active');
    expect(step.state.bannedUntil).toBeNull();
    expect(step.state.banCount).toBe(1);
    expect(step.events).toEqual([{ type: 'rule.unbanned', at: ban.bannedUntil, banCount: 1 }]);
    expect(isBanned(step.state, ban.bannedUntil)).toBe(false);
  });

  it('nothing observed during the ban counts afterwards (no carry-over, no back-fill)', () => {
    const { state, ban } = banAt(initialBanState(), T0);
    const during = feed(state, 'failure', 200, ban.at + 1, 1);
    expect(during.events).toEqual([]);
    expect(during.state).toEqual(state);
    const after = expireBan(during.state, ban.bannedUntil).state;
    expect(after.failures).toEqual([]);
    expect(after.overlong).toEqual([]);
    // 89 more failures after the ban do not re-ban: the window restarted.
    expect(feed(after, 'failure', 89, ban.bannedUntil, 10).state.status).toBe('active');
  });

  it('an observation after the end first unbans, then counts', () => {
    const { state, ban } = banAt(initialBanState(), T0);
    const step = observe(state, 'failure', ban.bannedUntil + 5);
    expect(step.events).toEqual([{ type: 'rule.unbanned', at: ban.bannedUntil + 5, banCount: 1 }]);
    expect(step.state.failures).toEqual([ban.bannedUntil + 5]);
  });
});

describe('ban duration = ban count × 5 min, capped at 5, consecutive within 24 h', () => {
  it('vectors ban_durations_minutes', () => {
    const { ban_durations_minutes } = loadCallbackVectors();
    for (const [n, minutes] of Object.entries(ban_durations_minutes)) expect(banDurationMs(Number(n))).toBe(minutes * MIN);
  });

  it('consecutive bans last 5, 10, 15, 20, 25 then plateau at 25 minutes', () => {
    let s = initialBanState();
    let t = T0;
    const durations: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = banAt(s, t);
      durations.push(r.ban.durationMs / MIN);
      counts.push(r.ban.banCount);
      s = expireBan(r.state, r.ban.bannedUntil).state;
      t = r.ban.bannedUntil + 60_000; // next ban one minute after the previous one ended
    }
    expect(durations).toEqual([5, 10, 15, 20, 25, 25, 25, 25]);
    expect(counts).toEqual([1, 2, 3, 4, 5, 5, 5, 5]);
  });

  it('a ban starting 24 h after the previous ban ended still counts as consecutive', () => {
    const first = banAt(initialBanState(), T0);
    const s = expireBan(first.state, first.ban.bannedUntil).state;
    const start = first.ban.bannedUntil + 24 * 3_600_000 - 89 * 10; // 90th failure lands exactly at +24 h
    const second = banAt(s, start);
    expect(second.ban.at).toBe(first.ban.bannedUntil + 24 * 3_600_000);
    expect(second.ban.banCount).toBe(2);
    expect(second.ban.durationMs).toBe(10 * MIN);
  });

  it('resets to count 1 (5 minutes) when more than 24 h passed since the previous ban ended', () => {
    let s = initialBanState();
    let t = T0;
    for (let i = 0; i < 6; i++) {
      const r = banAt(s, t);
      s = expireBan(r.state, r.ban.bannedUntil).state;
      t = r.ban.bannedUntil + MIN;
    }
    expect(s.banCount).toBe(5);
    const quietEnd = (s.lastBanEnd as number) + 24 * 3_600_000 + 1;
    const next = banAt(s, quietEnd - 89 * 10);
    expect(next.ban.banCount).toBe(1);
    expect(next.ban.durationMs).toBe(5 * MIN);
  });
});

describe('state is plain data', () => {
  it('survives JSON and parseBanState unchanged', () => {
    const r = feed(initialBanState(), 'failure', 40, T0);
    const banned = banAt(initialBanState(), T0).state;
    for (const s of [r.state, banned, initialBanState()]) expect(parseBanState(JSON.parse(JSON.stringify(s)))).toEqual(s);
  });

  it('turns malformed stored state into a fresh one', () => {
    expect(parseBanState(null)).toEqual(initialBanState());
    expect(parseBanState({ status: 'banned' })).toEqual(initialBanState());
    expect(parseBanState({ banCount: 99 }).banCount).toBe(5);
  });
});

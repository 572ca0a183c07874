import { describe, expect, it } from 'vitest';
import { automationProblem, isOpen, localTime, nextTimerStep, queueNoticeText } from '../../src/modules/channel/automation-rules.js';

const MINUTE = 60_000;
// 2027-02-08 is a Monday; 01:30 UTC is 09:30 in Shanghai (UTC+8).
const MONDAY_0930_SHANGHAI = Date.UTC(2027, 1, 8, 1, 30);
const settings = { time_zone: 'Asia/Shanghai', business_hours: [{ day: 1, from: '09:00', to: '18:00' }], holidays: [] as string[], welcome: { enabled: false, text: '' }, out_of_hours: { enabled: false, text: '' } };

describe('automation rules', () => {
  it('reads the local day, date and time in the zone', () => {
    expect(localTime(MONDAY_0930_SHANGHAI, 'Asia/Shanghai')).toEqual({ day: 1, date: '2027-02-08', hhmm: '09:30' });
    expect(localTime(MONDAY_0930_SHANGHAI, 'America/New_York')).toEqual({ day: 0, date: '2027-02-07', hhmm: '20:30' });
  });

  it('is open inside a period of the day, closed outside it and on holidays; no periods: always open', () => {
    expect(isOpen(settings, MONDAY_0930_SHANGHAI)).toBe(true);
    expect(isOpen(settings, MONDAY_0930_SHANGHAI + 9 * 60 * MINUTE)).toBe(false); // 18:30
    expect(isOpen({ ...settings, time_zone: 'Europe/London' }, MONDAY_0930_SHANGHAI)).toBe(false); // 01:30 there
    expect(isOpen({ ...settings, holidays: ['2027-02-08'] }, MONDAY_0930_SHANGHAI)).toBe(false);
    expect(isOpen({ ...settings, business_hours: [] }, MONDAY_0930_SHANGHAI)).toBe(true);
  });

  it('finds what the schema cannot see', () => {
    expect(automationProblem(settings)).toBeUndefined();
    expect(automationProblem({ ...settings, time_zone: 'Nowhere/Land' })).toMatch(/^time_zone/);
    expect(automationProblem({ ...settings, holidays: ['2027-13-01'] })).toMatch(/^holidays\[0\]/);
  });

  it('schedules the idle warning once per silence, the close, and the re-offer every period', () => {
    const timers = { ...settings, idle_warning_minutes: 10, auto_close_minutes: 30, reoffer_minutes: 5 };
    const processing = { state: 'processing' as const, queuedAt: 0, lastCustomerAt: 1000, idleWarnedAt: null, reofferedAt: null };
    expect(nextTimerStep(timers, processing)).toEqual({ action: 'idle_warning', at: 1000 + 10 * MINUTE });
    expect(nextTimerStep(timers, { ...processing, idleWarnedAt: 2000 })).toEqual({ action: 'auto_close', at: 1000 + 30 * MINUTE });
    // A customer message after the warning starts the silence over.
    expect(nextTimerStep(timers, { ...processing, idleWarnedAt: 500 })).toEqual({ action: 'idle_warning', at: 1000 + 10 * MINUTE });
    const waiting = { ...processing, state: 'waiting' as const };
    expect(nextTimerStep(timers, waiting)).toEqual({ action: 'reoffer', at: 5 * MINUTE });
    expect(nextTimerStep(timers, { ...waiting, reofferedAt: 5 * MINUTE })).toEqual({ action: 'reoffer', at: 10 * MINUTE });
    expect(nextTimerStep(timers, { ...processing, state: 'closed' })).toEqual({ action: 'stop' });
    expect(nextTimerStep(settings, processing)).toEqual({ action: 'stop' });
  });

  it('puts the position in the queue notice', () => {
    expect(queueNoticeText('You are number {position}.', 3)).toBe('You are number 3.');
  });
});

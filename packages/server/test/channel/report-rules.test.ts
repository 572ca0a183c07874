/**
 * The pure rules of reports: days in a time zone (also where daylight saving changes at
 * midnight), the range checks, the interpolated percentile, and the CSV rendering.
 */
import { describe, expect, it } from 'vitest';
import type { ReportFigures, ReportView } from '@parley/protocol';
import { AppError } from '../../src/kernel/errors.js';
import { reportCsv, reportFileName } from '../../src/modules/channel/report-csv.js';
import { dayStart, interpolate, reportRange } from '../../src/modules/channel/report-rules.js';

const localDate = (at: number, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

function codeOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
}

describe('report rules', () => {
  it('starts each day at its first instant in the zone, on ordinary days and across daylight-saving changes', () => {
    expect(dayStart('2026-11-02', 'UTC')).toBe(Date.parse('2026-11-02T00:00:00Z'));
    expect(dayStart('2026-11-02', 'Asia/Shanghai')).toBe(Date.parse('2026-11-01T16:00:00Z'));
    expect(dayStart('2026-11-01', 'America/New_York')).toBe(Date.parse('2026-11-01T04:00:00Z'));
    expect(dayStart('2026-11-02', 'America/New_York')).toBe(Date.parse('2026-11-02T05:00:00Z'));
    expect(dayStart('2026-03-08', 'America/New_York')).toBe(Date.parse('2026-03-08T05:00:00Z'));
    expect(dayStart('2026-03-09', 'America/New_York')).toBe(Date.parse('2026-03-09T04:00:00Z'));
    expect(dayStart('2026-03-29', 'Europe/Paris')).toBe(Date.parse('2026-03-28T23:00:00Z'));
    expect(dayStart('2026-10-25', 'Asia/Kolkata')).toBe(Date.parse('2026-10-24T18:30:00Z'));
    // Whatever the zone's rules, a day's start is in that day and the instant before it is not,
    // also in zones whose clocks jump at midnight (Santiago, Havana, Beirut, Cairo).
    for (const zone of ['America/Santiago', 'America/Havana', 'Asia/Beirut', 'Africa/Cairo', 'Pacific/Apia', 'Australia/Lord_Howe']) {
      for (let d = Date.UTC(2026, 0, 1); d < Date.UTC(2027, 0, 1); d += 86_400_000) {
        const date = new Date(d).toISOString().slice(0, 10);
        const start = dayStart(date, zone);
        expect(localDate(start, zone), `${zone} ${date}`).toBe(date);
        expect(localDate(start - 1000, zone) < date, `${zone} ${date}`).toBe(true);
      }
    }
  });

  it('lists the days of a range with their spans and checks it', () => {
    const range = reportRange({ from: '2026-10-31', to: '2026-11-02', time_zone: 'america/new_york' });
    expect(range.timeZone).toBe('America/New_York');
    expect(range.days.map((d) => [d.date, (d.end - d.start) / 3_600_000])).toEqual([
      ['2026-10-31', 24],
      ['2026-11-01', 25],
      ['2026-11-02', 24],
    ]);
    expect(range.start).toBe(range.days[0]!.start);
    expect(range.end).toBe(range.days[2]!.end);
    expect(reportRange({ from: '2026-11-02', to: '2026-11-02' }).timeZone).toBe('UTC');
    expect(codeOf(() => reportRange({ from: '2026-02-29', to: '2026-03-01' }))).toBe('invalid_report_range');
    expect(codeOf(() => reportRange({ from: '2026-1-01', to: '2026-03-01' }))).toBe('invalid_report_range');
    expect(codeOf(() => reportRange({ from: '2026-03-02', to: '2026-03-01' }))).toBe('invalid_report_range');
    expect(codeOf(() => reportRange({ from: '2026-03-01', to: '2026-03-01', time_zone: 'Nowhere/City' }))).toBe('invalid_report_range');
    expect(codeOf(() => reportRange({ from: '2025-03-01', to: '2026-03-01' }))).toBe('ok');
    expect(codeOf(() => reportRange({ from: '2025-03-01', to: '2026-03-02' }))).toBe('report_range_too_long');
  });

  it('interpolates a percentile between the values around its rank (PERCENTILE.INC)', () => {
    // Values 10, 20, 30, 40: the median at rank 1.5, p90 at rank 2.7.
    expect(interpolate(4, 50, 20, 30)).toBe(25);
    expect(interpolate(4, 90, 30, 40)).toBeCloseTo(37, 10);
    // An odd count puts the median on a value.
    expect(interpolate(3, 50, 20, 20)).toBe(20);
    expect(interpolate(1, 90, 7, 7)).toBe(7);
  });

  it('writes CSV rows with the same columns, quoting and defusing spreadsheet formulas', () => {
    const figures = (conversations: number): ReportFigures => ({
      conversations,
      first_response: { count: 1, median_seconds: 1.5, p90_seconds: 2 },
      handle_time: { count: 0, median_seconds: null, p90_seconds: null },
      csat: { count: 0, average: null },
    });
    const view: ReportView = {
      range: { from: '2026-11-01', to: '2026-11-01', time_zone: 'UTC', start: 0, end: 86_400_000, days: 1 },
      filter: { queue_id: '3', agent_id: null },
      totals: figures(2),
      per_day: [{ date: '2026-11-01', conversations: 2 }],
      agents: [{ agent_id: 9, nickname: '=HYPERLINK("x")', ...figures(1) }],
      skill_groups: [{ queue_id: '3', queue_name: 'Sales, "east"', ...figures(2) }],
    };
    const lines = reportCsv(view).slice(1).split('\r\n');
    expect(lines).toEqual([
      expect.stringMatching(/^section,date,/),
      'total,,,,,,2,1,1.5,2,0,,,0,',
      'day,2026-11-01,,,,,2,,,,,,,,',
      `agent,,9,"'=HYPERLINK(""x"")",,,1,1,1.5,2,0,,,0,`,
      'skill_group,,,,3,"Sales, ""east""",2,1,1.5,2,0,,,0,',
      '',
    ]);
    expect(lines.slice(0, -1).every((l) => l.split(',').length >= 15)).toBe(true);
    expect(reportFileName(view)).toBe('parley-report-2026-11-01-to-2026-11-01-group3.csv');
  });
});

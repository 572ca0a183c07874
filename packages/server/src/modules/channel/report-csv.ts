/**
 * A report as CSV (RFC 4180, CRLF lines, UTF-8 with a byte-order mark so spreadsheets read
 * non-Latin names): one header, then a `total` row, a `day` row per day, and a row per agent and
 * per skill group, all with the same columns (empty where a figure does not apply). A name that a
 * spreadsheet would take for a formula (starting with `=`, `+`, `-`, `@`, tab or CR) is prefixed
 * with `'`.
 */
import type { ReportFigures, ReportView } from '@parley/protocol';

export const REPORT_CSV_COLUMNS = [
  'section',
  'date',
  'agent_id',
  'agent',
  'queue_id',
  'skill_group',
  'conversations',
  'first_response_count',
  'first_response_median_seconds',
  'first_response_p90_seconds',
  'handle_time_count',
  'handle_time_median_seconds',
  'handle_time_p90_seconds',
  'csat_count',
  'csat_average',
] as const;

type Column = (typeof REPORT_CSV_COLUMNS)[number];
type Row = Partial<Record<Column, string | number | null>>;

function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const figureCells = (f: ReportFigures): Row => ({
  conversations: f.conversations,
  first_response_count: f.first_response.count,
  first_response_median_seconds: f.first_response.median_seconds,
  first_response_p90_seconds: f.first_response.p90_seconds,
  handle_time_count: f.handle_time.count,
  handle_time_median_seconds: f.handle_time.median_seconds,
  handle_time_p90_seconds: f.handle_time.p90_seconds,
  csat_count: f.csat.count,
  csat_average: f.csat.average,
});

export function reportCsv(report: ReportView): string {
  const rows: Row[] = [
    { section: 'total', ...figureCells(report.totals) },
    ...report.per_day.map((d): Row => ({ section: 'day', date: d.date, conversations: d.conversations })),
    ...report.agents.map((a): Row => ({ section: 'agent', agent_id: a.agent_id, agent: a.nickname, ...figureCells(a) })),
    ...report.skill_groups.map((g): Row => ({ section: 'skill_group', queue_id: g.queue_id, skill_group: g.queue_name, ...figureCells(g) })),
  ];
  const lines = [REPORT_CSV_COLUMNS.join(','), ...rows.map((row) => REPORT_CSV_COLUMNS.map((c) => cell(row[c])).join(','))];
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** The download's file name: the range and, when filtered, the group or agent. */
export function reportFileName(report: ReportView): string {
  const filter = [report.filter.queue_id === null ? '' : `-group${report.filter.queue_id}`, report.filter.agent_id === null ? '' : `-agent${report.filter.agent_id}`].join('');
  return `parley-report-${report.range.from}-to-${report.range.to}${filter}.csv`;
}

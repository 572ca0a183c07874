/**
 * Reports of a tenant's conversations over a range of days (docs/channel.md, "Reports"): the
 * conversations opened each day, the first-response and handle times (median and p90), and CSAT,
 * in total, per agent and per skill group. Every figure is over the conversations opened in the
 * range (the cohort); storage counts and ranks them in SQL, this class shapes and rounds.
 */
import type { ReportFigures, ReportQuery, ReportTimeFigure, ReportView } from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';
import type { RoutingDirectory } from './ports.js';
import type { CountRow, PercentileRow, ReportCohort, ReportGrouping, ReportMetric, ReportsRepository } from './report-ports.js';
import { average, interpolate, reportRange, seconds } from './report-rules.js';

/** The median and the 90th percentile. */
const PERCENTS = [50, 90] as const;

type Figures = Map<number, ReportFigures>;

function timeFigure(row: PercentileRow | undefined): ReportTimeFigure {
  if (!row || row.count === 0) return { count: 0, median_seconds: null, p90_seconds: null };
  const [median, p90] = PERCENTS.map((p, i) => seconds(interpolate(row.count, p, row.around[i]!.lower, row.around[i]!.upper)));
  return { count: row.count, median_seconds: median!, p90_seconds: p90! };
}

export class Reports {
  constructor(
    private readonly repo: ReportsRepository,
    private readonly directory: RoutingDirectory,
  ) {}

  async report(tenantId: number, query: ReportQuery): Promise<ReportView> {
    const range = reportRange(query);
    const queueId = query.queue_id === undefined ? undefined : Number(query.queue_id);
    if (queueId !== undefined && !(await this.directory.queue(tenantId, queueId))) {
      throw new AppError('invalid_request', { detail: `queue_id: unknown skill group ${query.queue_id}` });
    }
    if (query.agent_id !== undefined && !(await this.directory.agent(tenantId, query.agent_id))) {
      throw new AppError('invalid_request', { detail: `agent_id: no agent ${query.agent_id} in this tenant` });
    }
    const cohort: ReportCohort = {
      tenantId,
      start: range.start,
      end: range.end,
      ...(queueId !== undefined ? { queueId } : {}),
      ...(query.agent_id !== undefined ? { agentId: query.agent_id } : {}),
    };
    const [perDay, totals, agents, queues, names] = await Promise.all([
      this.repo.perDay(cohort, range.days),
      this.figures(cohort, 'total'),
      this.figures(cohort, 'agent'),
      this.figures(cohort, 'queue'),
      this.repo.names(tenantId),
    ]);
    const empty: ReportFigures = { conversations: 0, first_response: timeFigure(undefined), handle_time: timeFigure(undefined), csat: { count: 0, average: null } };
    return {
      range: { from: range.from, to: range.to, time_zone: range.timeZone, start: range.start, end: range.end, days: range.days.length },
      filter: { queue_id: query.queue_id ?? null, agent_id: query.agent_id ?? null },
      totals: totals.get(0) ?? empty,
      per_day: range.days.map((d) => ({ date: d.date, conversations: perDay.get(d.date) ?? 0 })),
      agents: [...agents]
        .map(([id, f]) => ({ agent_id: id, nickname: names.agents.get(id) ?? `Agent ${id}`, ...f }))
        .sort((a, b) => b.conversations - a.conversations || a.nickname.localeCompare(b.nickname) || a.agent_id - b.agent_id),
      skill_groups: [...queues]
        .map(([id, f]) => ({ queue_id: String(id), queue_name: names.queues.get(id) ?? `Skill group ${id}`, ...f }))
        .sort((a, b) => b.conversations - a.conversations || a.queue_name.localeCompare(b.queue_name)),
    };
  }

  /** Counts, CSAT and both times of each group key. */
  private async figures(cohort: ReportCohort, grouping: ReportGrouping): Promise<Figures> {
    const [counts, first, handle] = await Promise.all([
      this.repo.counts(cohort, grouping),
      this.times(cohort, 'first_response', grouping),
      this.times(cohort, 'handle_time', grouping),
    ]);
    const out: Figures = new Map();
    for (const row of counts) out.set(row.key, figuresOf(row, first.get(row.key), handle.get(row.key)));
    return out;
  }

  private async times(cohort: ReportCohort, metric: ReportMetric, grouping: ReportGrouping): Promise<Map<number, PercentileRow>> {
    const rows = await this.repo.percentiles(cohort, metric, grouping, PERCENTS);
    return new Map(rows.map((r) => [r.key, r]));
  }
}

function figuresOf(row: CountRow, first: PercentileRow | undefined, handle: PercentileRow | undefined): ReportFigures {
  return {
    conversations: row.conversations,
    first_response: timeFigure(first),
    handle_time: timeFigure(handle),
    csat: { count: row.rated, average: average(row.scoreSum, row.rated) },
  };
}

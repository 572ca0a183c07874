/**
 * Storage ports of the supervisor view and the reports (docs/channel.md); implemented in
 * src/storage/repositories/channel-reports.ts. Storage counts, orders and picks; the figures'
 * definitions (which conversations, which percentiles, rounding) are the modules'.
 */
import type { AgentStatus, Role } from '@parley/protocol';

/** The open conversations of one skill group, by state. */
export interface QueueLine {
  queueId: number;
  state: 'waiting' | 'processing';
  count: number;
  vip: number;
  /** The earliest `queued_at` among them. */
  oldestQueuedAt: number;
}

export interface SupervisedAgent {
  id: number;
  username: string;
  nickname: string;
  avatar: string | null;
  role: Role;
  status: AgentStatus;
  maxSessions: number;
  /** Conversations in processing held by the agent. */
  load: number;
  queueIds: number[];
}

export interface SupervisorRepository {
  skillGroups(tenantId: number): Promise<Array<{ id: number; name: string }>>;
  /** Waiting and processing conversations of the tenant, counted per skill group and state. */
  queueLines(tenantId: number): Promise<QueueLine[]>;
  /** The tenant's agents and admins with their load. */
  agents(tenantId: number): Promise<SupervisedAgent[]>;
}

/** The conversations a report covers: a tenant's, opened in [start, end), optionally of one group or agent. */
export interface ReportCohort {
  tenantId: number;
  start: number;
  end: number;
  queueId?: number;
  agentId?: number;
}

/** What figures are grouped by: nothing (the totals), the agent holding the conversation, or its skill group. */
export type ReportGrouping = 'total' | 'agent' | 'queue';

/** A measured time: `first_response` (opened → first agent reply), `handle_time` (first assignment → close). */
export type ReportMetric = 'first_response' | 'handle_time';

/** Per group key (0 for the totals; conversations without an agent are left out of `agent`). */
export interface CountRow {
  key: number;
  conversations: number;
  rated: number;
  scoreSum: number;
}

/**
 * The values of one metric in a group, in ms: how many, and for each asked percent p the values at
 * the two ranks around (n − 1) × p / 100 (ranks from 0, ascending), which the caller interpolates.
 */
export interface PercentileRow {
  key: number;
  count: number;
  around: Array<{ lower: number; upper: number }>;
}

export interface ReportsRepository {
  /** Conversations opened on each day, `days` being consecutive [start, end) spans. */
  perDay(cohort: ReportCohort, days: ReadonlyArray<{ date: string; start: number; end: number }>): Promise<Map<string, number>>;
  counts(cohort: ReportCohort, grouping: ReportGrouping): Promise<CountRow[]>;
  percentiles(cohort: ReportCohort, metric: ReportMetric, grouping: ReportGrouping, percents: readonly number[]): Promise<PercentileRow[]>;
  /** Names of the tenant's agents (also deleted ones are absent) and skill groups. */
  names(tenantId: number): Promise<{ agents: Map<number, string>; queues: Map<number, string> }>;
}

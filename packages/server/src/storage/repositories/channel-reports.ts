/**
 * The supervisor view's and the reports' reads (modules/channel/report-ports.ts), the same SQL on
 * both engines. Percentiles use window functions (ROW_NUMBER and COUNT over the group, both
 * engines have them): the values at the two ranks around each percentile's position are picked
 * here, the interpolation between them is the module's.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { CountRow, PercentileRow, ReportCohort, ReportGrouping, ReportMetric, ReportsRepository, SupervisorRepository } from '../../modules/channel/report-ports.js';
import type { Database } from '../schema.js';

export function kyselySupervisorRepository(db: Kysely<Database>): SupervisorRepository {
  return {
    async skillGroups(tenantId) {
      return db.selectFrom('skill_groups').select(['id', 'name']).where('tenant_id', '=', tenantId).orderBy('name').orderBy('id').execute();
    },
    async queueLines(tenantId) {
      const rows = await db
        .selectFrom('conversations')
        .select((eb) => ['queue_id', 'state', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('vip').as('vip'), eb.fn.min<number>('queued_at').as('oldest')])
        .where('tenant_id', '=', tenantId)
        .where('state', 'in', ['waiting', 'processing'])
        .groupBy(['queue_id', 'state'])
        .execute();
      return rows.map((r) => ({ queueId: r.queue_id, state: r.state as 'waiting' | 'processing', count: Number(r.n), vip: Number(r.vip ?? 0), oldestQueuedAt: Number(r.oldest) }));
    },
    async agents(tenantId) {
      const [users, memberships, loads] = await Promise.all([
        db
          .selectFrom('users')
          .select(['id', 'username', 'nickname', 'avatar', 'role', 'status', 'max_sessions'])
          .where('tenant_id', '=', tenantId)
          .where('role', 'in', ['agent', 'admin'])
          .orderBy('nickname')
          .orderBy('id')
          .execute(),
        db.selectFrom('agent_queues as q').innerJoin('users as u', 'u.id', 'q.user_id').select(['q.user_id', 'q.queue_id']).where('u.tenant_id', '=', tenantId).orderBy('q.queue_id').execute(),
        db
          .selectFrom('conversations')
          .select((eb) => ['agent_id', eb.fn.countAll<number>().as('n')])
          .where('tenant_id', '=', tenantId)
          .where('state', '=', 'processing')
          .where('agent_id', 'is not', null)
          .groupBy('agent_id')
          .execute(),
      ]);
      const load = new Map(loads.map((l) => [l.agent_id, Number(l.n)]));
      return users.map((u) => ({
        id: u.id,
        username: u.username,
        nickname: u.nickname,
        avatar: u.avatar,
        role: u.role,
        status: u.status,
        maxSessions: u.max_sessions,
        load: load.get(u.id) ?? 0,
        queueIds: memberships.filter((m) => m.user_id === u.id).map((m) => m.queue_id),
      }));
    },
  };
}

/** The cohort's conditions on `conversations c`. */
function cohortWhere(cohort: ReportCohort): RawBuilder<unknown> {
  const parts = [sql`c.tenant_id = ${cohort.tenantId}`, sql`c.created_at >= ${cohort.start}`, sql`c.created_at < ${cohort.end}`];
  if (cohort.queueId !== undefined) parts.push(sql`c.queue_id = ${cohort.queueId}`);
  if (cohort.agentId !== undefined) parts.push(sql`c.agent_id = ${cohort.agentId}`);
  return sql.join(parts, sql` AND `);
}

/**
 * The group key of a conversation (0 for the totals), its GROUP BY and PARTITION BY (none for the
 * totals: a literal there would name a column position), and the rows it leaves out (no agent:
 * not in the per-agent figures).
 */
function keyOf(grouping: ReportGrouping): { key: RawBuilder<unknown>; groupBy: RawBuilder<unknown>; partitionBy: RawBuilder<unknown>; where: RawBuilder<unknown> } {
  if (grouping === 'total') return { key: sql`0`, groupBy: sql``, partitionBy: sql``, where: sql`1 = 1` };
  const key = grouping === 'agent' ? sql`c.agent_id` : sql`c.queue_id`;
  return { key, groupBy: sql`GROUP BY ${key}`, partitionBy: sql`PARTITION BY ${key}`, where: grouping === 'agent' ? sql`c.agent_id IS NOT NULL` : sql`1 = 1` };
}

/** The measured value (ms) of a conversation, and which conversations have one. */
function metricOf(metric: ReportMetric): { value: RawBuilder<unknown>; where: RawBuilder<unknown> } {
  return metric === 'first_response'
    ? { value: sql`c.first_reply_at - c.created_at`, where: sql`c.first_reply_at IS NOT NULL` }
    : { value: sql`c.closed_at - c.assigned_at`, where: sql`c.state = 'closed' AND c.assigned_at IS NOT NULL AND c.closed_at IS NOT NULL` };
}

export function kyselyReportsRepository(db: Kysely<Database>): ReportsRepository {
  return {
    async perDay(cohort, days) {
      if (days.length === 0) return new Map();
      // The days as a table of spans, typed so that PostgreSQL compares them with the bigint column.
      const values = sql.join(days.map((d) => sql`(CAST(${d.date} AS TEXT), CAST(${d.start} AS BIGINT), CAST(${d.end} AS BIGINT))`));
      const { rows } = await sql<{ day: string; n: number | string }>`
        WITH days (day, day_start, day_end) AS (VALUES ${values})
        SELECT d.day AS day, COUNT(c.id) AS n
        FROM days d JOIN conversations c ON c.created_at >= d.day_start AND c.created_at < d.day_end AND ${cohortWhere(cohort)}
        GROUP BY d.day`.execute(db);
      return new Map(rows.map((r) => [r.day, Number(r.n)]));
    },

    async counts(cohort, grouping) {
      const { key, groupBy, where } = keyOf(grouping);
      const { rows } = await sql<{ k: number | string; n: number | string; rated: number | string; score_sum: number | string | null }>`
        SELECT ${key} AS k, COUNT(*) AS n, COUNT(c.csat_score) AS rated, SUM(c.csat_score) AS score_sum
        FROM conversations c
        WHERE ${cohortWhere(cohort)} AND ${where}
        ${groupBy}`.execute(db);
      // Without rows, the totals' aggregate still answers one row of zeros: no conversations is no figures.
      return rows.filter((r) => Number(r.n) > 0).map((r): CountRow => ({ key: Number(r.k), conversations: Number(r.n), rated: Number(r.rated), scoreSum: Number(r.score_sum ?? 0) }));
    },

    async percentiles(cohort, metric, grouping, percents) {
      const { key, partitionBy, where } = keyOf(grouping);
      const measured = metricOf(metric);
      // For percent p, the ranks ⌊(n − 1)p/100⌋ and ⌈(n − 1)p/100⌉ (integer division on both engines).
      const picks = sql.join(
        percents.map(
          (p, i) => sql`MAX(CASE WHEN r.i = ((r.n - 1) * ${sql.lit(p)}) / 100 THEN r.v END) AS ${sql.ref(`lo${i}`)},
            MAX(CASE WHEN r.i = ((r.n - 1) * ${sql.lit(p)} + 99) / 100 THEN r.v END) AS ${sql.ref(`hi${i}`)}`,
        ),
      );
      const { rows } = await sql<Record<string, number | string | null>>`
        SELECT r.k AS k, r.n AS n, ${picks}
        FROM (
          SELECT ${key} AS k, ${measured.value} AS v,
            ROW_NUMBER() OVER (${partitionBy} ORDER BY ${measured.value}) - 1 AS i,
            COUNT(*) OVER (${partitionBy}) AS n
          FROM conversations c
          WHERE ${cohortWhere(cohort)} AND ${where} AND ${measured.where}
        ) r
        GROUP BY r.k, r.n`.execute(db);
      return rows.map(
        (r): PercentileRow => ({
          key: Number(r.k),
          count: Number(r.n),
          around: percents.map((_, i) => ({ lower: Number(r[`lo${i}`]), upper: Number(r[`hi${i}`]) })),
        }),
      );
    },

    async names(tenantId) {
      const [agents, queues] = await Promise.all([
        db.selectFrom('users').select(['id', 'nickname']).where('tenant_id', '=', tenantId).execute(),
        db.selectFrom('skill_groups').select(['id', 'name']).where('tenant_id', '=', tenantId).execute(),
      ]);
      return { agents: new Map(agents.map((a) => [a.id, a.nickname])), queues: new Map(queues.map((q) => [q.id, q.name])) };
    },
  };
}

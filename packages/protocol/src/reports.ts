/**
 * The tenant admin's supervisor view and reports (docs/channel.md, "Supervisor view" and
 * "Reports"): live queue and agent figures, and conversation figures over a range of days.
 */
import { Type, type Static } from 'typebox';
import { AgentStatus, Role } from './accounts.js';

const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const SupervisorSkillGroup = Type.Object({
  queue_id: Type.String(),
  queue_name: Type.String(),
  waiting: Type.Integer({ description: 'Conversations waiting in the group' }),
  vip_waiting: Type.Integer({ description: 'Of those, VIP ones' }),
  longest_wait_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'How long the longest-waiting one has waited since it (last) entered the queue, at `as_of`; null when none waits' }),
  oldest_queued_at: Type.Union([Type.Integer(), Type.Null()], { description: 'When that one entered the queue (epoch ms)' }),
  processing: Type.Integer({ description: 'Conversations of the group being handled by an agent' }),
  agents_online: Type.Integer({ description: 'Members of the group whose status is online' }),
});
export type SupervisorSkillGroup = Static<typeof SupervisorSkillGroup>;

export const SupervisorAgent = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  nickname: Type.String(),
  avatar: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  status: AgentStatus,
  load: Type.Integer({ description: 'Conversations the agent is handling (state processing)' }),
  max_sessions: Type.Integer(),
  queue_ids: Type.Array(Type.String()),
});
export type SupervisorAgent = Static<typeof SupervisorAgent>;

export const SupervisorView = Type.Object(
  {
    as_of: Type.Integer({ description: 'The server time the figures are for (epoch ms)' }),
    skill_groups: Type.Array(SupervisorSkillGroup),
    agents: Type.Array(SupervisorAgent),
  },
  {
    examples: [
      {
        as_of: 1893456000000,
        skill_groups: [{ queue_id: '2', queue_name: 'sales', waiting: 3, vip_waiting: 1, longest_wait_seconds: 245, oldest_queued_at: 1893455755000, processing: 4, agents_online: 2 }],
        agents: [{ id: 7, username: 'lily@shop.example', nickname: 'Lily', avatar: null, role: 'agent', status: 'online', load: 3, max_sessions: 5, queue_ids: ['2'] }],
      },
    ],
  },
);
export type SupervisorView = Static<typeof SupervisorView>;

/** Reports are at most this many days long (both ends included). */
export const REPORT_MAX_DAYS = 366;

export const ReportQuery = Type.Object(
  {
    from: Type.String({ maxLength: 32, description: 'First day, `YYYY-MM-DD` in `time_zone`' }),
    to: Type.String({ maxLength: 32, description: `Last day (included), \`YYYY-MM-DD\` in \`time_zone\`; at most ${REPORT_MAX_DAYS} days from \`from\`` }),
    time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone the days are counted in (default `UTC`)' })),
    queue_id: Type.Optional(Type.String({ pattern: '^\\d{1,16}$', description: 'Only conversations of this skill group' })),
    agent_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Only conversations held (or, closed, last held) by this agent' })),
  },
  { additionalProperties: false },
);
export type ReportQuery = Static<typeof ReportQuery>;

const TimeFigure = Type.Object({
  count: Type.Integer({ description: 'Conversations measured' }),
  median_seconds: NullableNumber,
  p90_seconds: NullableNumber,
});
export type ReportTimeFigure = Static<typeof TimeFigure>;

const CsatFigure = Type.Object({
  count: Type.Integer({ description: 'Rated conversations' }),
  average: Type.Union([Type.Number(), Type.Null()], { description: 'Mean score 1–5, two decimals' }),
});

const FIGURES = {
  conversations: Type.Integer({ description: 'Conversations opened in the range' }),
  first_response: TimeFigure,
  handle_time: TimeFigure,
  csat: CsatFigure,
};

export const ReportFigures = Type.Object(FIGURES);
export type ReportFigures = Static<typeof ReportFigures>;

export const ReportView = Type.Object(
  {
    range: Type.Object({
      from: Type.String(),
      to: Type.String(),
      time_zone: Type.String(),
      start: Type.Integer({ description: 'The first instant of `from` in the zone (epoch ms)' }),
      end: Type.Integer({ description: 'The first instant after `to` (epoch ms)' }),
      days: Type.Integer(),
    }),
    filter: Type.Object({ queue_id: Type.Union([Type.String(), Type.Null()]), agent_id: NullableInteger }),
    totals: ReportFigures,
    per_day: Type.Array(Type.Object({ date: Type.String(), conversations: Type.Integer() })),
    agents: Type.Array(Type.Object({ agent_id: Type.Integer(), nickname: Type.String(), ...FIGURES })),
    skill_groups: Type.Array(Type.Object({ queue_id: Type.String(), queue_name: Type.String(), ...FIGURES })),
  },
  {
    examples: [
      {
        range: { from: '2026-11-01', to: '2026-11-02', time_zone: 'Asia/Shanghai', start: 1793462400000, end: 1793635200000, days: 2 },
        filter: { queue_id: null, agent_id: null },
        totals: { conversations: 3, first_response: { count: 2, median_seconds: 45, p90_seconds: 57 }, handle_time: { count: 2, median_seconds: 600, p90_seconds: 840 }, csat: { count: 1, average: 4 } },
        per_day: [
          { date: '2026-11-01', conversations: 1 },
          { date: '2026-11-02', conversations: 2 },
        ],
        agents: [{ agent_id: 7, nickname: 'Lily', conversations: 3, first_response: { count: 2, median_seconds: 45, p90_seconds: 57 }, handle_time: { count: 2, median_seconds: 600, p90_seconds: 840 }, csat: { count: 1, average: 4 } }],
        skill_groups: [{ queue_id: '2', queue_name: 'sales', conversations: 3, first_response: { count: 2, median_seconds: 45, p90_seconds: 57 }, handle_time: { count: 2, median_seconds: 600, p90_seconds: 840 }, csat: { count: 1, average: 4 } }],
      },
    ],
  },
);
export type ReportView = Static<typeof ReportView>;

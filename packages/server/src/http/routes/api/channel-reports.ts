import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, ReportQuery, ReportView, SupervisorView, TenantParams } from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { reportCsv, reportFileName } from '../../../modules/channel/report-csv.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { ok } from './envelope.js';

const security = API_BEARER;
const ADMIN = ['admin'] as const;

const reportDescription =
  'Over the conversations opened from the first instant of `from` to the end of `to` in `time_zone`: conversations per day; ' +
  'first-response time (opened → first agent reply) and handle time (first assignment → close), each median and p90 interpolated ' +
  '(PERCENTILE.INC); CSAT count and average; in total, per agent and per skill group. `queue_id` and `agent_id` narrow the conversations. ' +
  'A malformed or unreal date, `to` before `from`, or an unknown zone is 400 `invalid_report_range`; over 366 days is 400 `report_range_too_long`.';

const CSV_EXAMPLE =
  'section,date,agent_id,agent,queue_id,skill_group,conversations,first_response_count,first_response_median_seconds,first_response_p90_seconds,handle_time_count,handle_time_median_seconds,handle_time_p90_seconds,csat_count,csat_average\r\n' +
  'total,,,,,,3,2,45,57,2,600,840,1,4\r\nday,2026-11-01,,,,,1,,,,,,,,\r\n';

/** The tenant admin's supervisor view and reports (docs/channel.md). */
export const channelReportRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  app.get(
    '/api/tenants/:tenantId/supervisor',
    {
      schema: {
        tags: ['reports'],
        security,
        summary: "Live figures: each skill group's waiting count and longest wait, each agent's status and load",
        description:
          'Re-read it on the live events (`GET …/events`: `new_conversation`, `assignment`, `agent_status`). Take a conversation over with `POST …/conversations/{id}/accept` (waiting) or `…/transfer` `{agent_id: <yours>}`; hand it on with `…/transfer`.',
        params: TenantParams,
        response: { 200: ApiEntity(SupervisorView), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { tenantId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ADMIN);
      return ok(await channel.supervisor.view(tenantId));
    },
  );

  app.get(
    '/api/tenants/:tenantId/reports',
    {
      schema: {
        tags: ['reports'],
        security,
        summary: 'Report over a range of days: conversations per day, first-response and handle times (median, p90), CSAT per agent and skill group',
        description: reportDescription,
        params: TenantParams,
        querystring: ReportQuery,
        response: { 200: ApiEntity(ReportView), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { tenantId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ADMIN);
      return ok(await channel.reports.report(tenantId, request.query));
    },
  );

  app.get(
    '/api/tenants/:tenantId/reports.csv',
    {
      schema: {
        tags: ['reports'],
        security,
        summary: 'The same report as a CSV download',
        description: `${reportDescription} One header line, then a \`total\` row, a \`day\` row per day, and a row per \`agent\` and per \`skill_group\` (docs/channel.md lists the columns). Errors answer in the JSON envelope.`,
        params: TenantParams,
        querystring: ReportQuery,
        response: {
          200: { description: 'The report, `Content-Disposition: attachment`', content: { 'text/csv': { schema: Type.String(), example: CSV_EXAMPLE } } },
          ...apiErrors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ADMIN);
      const report = await channel.reports.report(tenantId, request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${reportFileName(report)}"`)
        .header('cache-control', 'no-store')
        .send(reportCsv(report));
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiEntity, AutomationSettings, SkillGroupParams } from '@parley/protocol';
import { Type } from 'typebox';
import { assertTenantAccess } from '../../../modules/accounts/service.js';
import type { ChannelModule } from '../../../modules/channel/index.js';
import { principalOf } from '../../plugins/bearer.js';
import { API_BEARER, apiErrors } from '../../openapi.js';
import { ok } from './envelope.js';

const tags = ['skill-groups'];
const path = '/api/tenants/:tenantId/skill-groups/:queueId/automation';

/** Contract 6.4: a skill group's automation (tenant admin). */
export const channelAutomationRoutes: FastifyPluginAsyncTypebox<{ channel: ChannelModule }> = async (app, { channel }) => {
  app.get(
    path,
    {
      schema: {
        tags,
        security: API_BEARER,
        summary: "Read a skill group's automation (null: never set, everything off)",
        params: SkillGroupParams,
        response: {
          200: ApiEntity(Type.Union([AutomationSettings, Type.Null()]), {
            examples: [{ status: 'OK', entity: { time_zone: 'Asia/Shanghai', business_hours: [{ day: 1, from: '09:00', to: '18:00' }], holidays: [], welcome: { enabled: true, text: 'Hello!' }, out_of_hours: { enabled: false, text: '' } } }],
          }),
          ...apiErrors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { tenantId, queueId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ['admin']);
      return ok(await channel.automation.get(tenantId, queueId));
    },
  );

  app.put(
    path,
    {
      schema: {
        tags,
        security: API_BEARER,
        summary: "Set a skill group's automation: business hours, welcome and out-of-hours messages, queue notice, idle warning, auto-close, re-offer",
        description:
          'Replaces the whole setting. `time_zone` must be an IANA zone, `from` before `to`, holidays real dates, the idle warning before the auto-close; each failure is 400 `invalid_request` naming the field. Timers (minutes, 0 or absent: off) apply to conversations opened after the change.',
        params: SkillGroupParams,
        body: AutomationSettings,
        response: { 200: ApiEntity(AutomationSettings), ...apiErrors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { tenantId, queueId } = request.params;
      assertTenantAccess(principalOf(request), tenantId, ['admin']);
      return ok(await channel.automation.save(tenantId, queueId, request.body));
    },
  );
};

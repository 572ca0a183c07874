import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImEnvelope, RoamingParams, RoamingRequest, RoamingResult } from '@parley/protocol';
import { imData } from '../../../modules/im/envelope.js';
import type { ImModule } from '../../../modules/im/index.js';
import { encodeMeta } from '../../../modules/im/msync/codec.js';
import { toMeta } from '../../../modules/im/msync/contents.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

/**
 * Contract 6.8, the SDK's `getHistoryMessages`: `POST /users/{u}/messageroaming` (the user's own
 * token, or the app token) answers a page of one conversation as base64 protobuf `Meta` records,
 * the same records the msync gateway delivers.
 */
export const imHistoryRoutes: FastifyPluginAsyncTypebox<{ im: ImModule }> = async (app, { im }) => {
  app.post(
    '/users/:username/messageroaming',
    {
      config: { imAuth: { self: 'username' } },
      schema: {
        tags: ['im'],
        summary: "A page of one of the user's conversations (history roaming)",
        security: IM_TOKEN,
        params: RoamingParams,
        body: RoamingRequest,
        response: { 200: ImEnvelope(RoamingResult), ...imErrors(...IM_ADMIN_ERRORS) },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const me = request.params.username.trim().toLowerCase();
      const page = await im.history.page(imApp, me, request.body, request.imPrincipal?.level === 'admin');
      const msgs = page.messages.map((m) => ({ msg: Buffer.from(encodeMeta(toMeta(imApp.appkey, m))).toString('base64') }));
      return imData(request, imApp, { msgs, is_last: page.isLast, next_key: page.nextKey });
    },
  );
};

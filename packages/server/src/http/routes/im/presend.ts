import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreatePresendRuleRequest, ImEntitiesEnvelope, ImEnvelope, PresendRuleView, RuleParams, UpdatePresendRuleRequest } from '@parley/protocol';
import type { PresendService } from '../../../modules/callbacks/presend/service.js';
import { imData, imEntities } from '../../../modules/im/envelope.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

const tags = ['callbacks'];
const security = IM_TOKEN;
const errors = imErrors(...IM_ADMIN_ERRORS);
const rule = { 200: ImEnvelope(PresendRuleView), ...errors };
const params = RuleParams;

/**
 * Pre-send callback rules (contract 6.5): create, list, read, change, delete, replace the secret.
 * Every route needs an app-admin token (the IM context answers 401 without one and 403 for a user
 * token); answers are in the IM envelope.
 */
export const imPresendRoutes: FastifyPluginAsyncTypebox<{ presend: PresendService }> = async (app, { presend }) => {
  app.get('/callbacks/presend-rules', { schema: { tags, summary: 'List the pre-send rules', security, response: { 200: ImEntitiesEnvelope(PresendRuleView), ...errors } } }, async (request) => {
    const imApp = imAppOf(request);
    return imEntities(request, imApp, await presend.list(imApp.id));
  });
  app.post(
    '/callbacks/presend-rules',
    { schema: { tags, summary: 'Create a pre-send rule (at most 4 per app)', security, body: CreatePresendRuleRequest, response: rule } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await presend.create(imApp.id, request.body));
    },
  );
  app.get('/callbacks/presend-rules/:name', { schema: { tags, summary: 'Read a pre-send rule', security, params, response: rule } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await presend.get(imApp.id, request.params.name));
  });
  app.put(
    '/callbacks/presend-rules/:name',
    { schema: { tags, summary: 'Change a pre-send rule', security, params, body: UpdatePresendRuleRequest, response: rule } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await presend.update(imApp.id, request.params.name, request.body));
    },
  );
  app.delete('/callbacks/presend-rules/:name', { schema: { tags, summary: 'Delete a pre-send rule (answers it as it was)', security, params, response: rule } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await presend.delete(imApp.id, request.params.name));
  });
  const rotate = { tags, summary: 'Replace the pre-send rule secret with a new one', security, 'x-no-body': true, params, response: rule };
  app.post('/callbacks/presend-rules/:name/secret', { schema: rotate }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await presend.rotateSecret(imApp.id, request.params.name));
  });
};

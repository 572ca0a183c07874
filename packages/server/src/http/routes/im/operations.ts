import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ImEntitiesEnvelope, ImEnvelope, OperationsWebhookOrNone, OperationsWebhookRequest, OperationsWebhookView, OperatorEventsQuery, OperatorEventView } from '@parley/protocol';
import type { OperatorOwner } from '../../../modules/operations/ports.js';
import type { OperationsService } from '../../../modules/operations/service.js';
import { imData, imEntities } from '../../../modules/im/envelope.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { imAppOf } from './context.js';

const tags = ['callbacks'];
const security = IM_TOKEN;
const errors = imErrors(...IM_ADMIN_ERRORS);
const webhook = { 200: ImEnvelope(OperationsWebhookView), ...errors };
const RESOURCE = 'operations webhook';

/**
 * The app's operations webhook and its operator events (contract 6.7). App-admin token (the IM
 * context answers 401 without one and 403 for a user token); answers in the IM envelope.
 */
export const imOperationsRoutes: FastifyPluginAsyncTypebox<{ operations: OperationsService }> = async (app, { operations }) => {
  const ownerOf = (appId: string): OperatorOwner => ({ scope: 'app', id: appId });
  const put = {
    tags,
    summary: "Set the app's operations webhook: rule.banned, rule.unbanned and store.expiring are sent to it, signed (Standard Webhooks)",
    description: 'Without `secret` one is generated. The answer holds the secret in force; it is never shown again. The URL is refused (400 `invalid_callback_url`) when it resolves to an internal address, unless private callbacks are allowed.',
    security,
    body: OperationsWebhookRequest,
    response: webhook,
  };
  app.put('/callbacks/operations', { schema: put }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await operations.put(ownerOf(imApp.id), request.body));
  });
  const read = { tags, summary: "Read the app's operations webhook, without its secret (null: none is set)", security, response: { 200: ImEnvelope(OperationsWebhookOrNone), ...errors } };
  app.get('/callbacks/operations', { schema: read }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await operations.get(ownerOf(imApp.id)));
  });
  app.delete('/callbacks/operations', { schema: { tags, summary: "Remove the app's operations webhook (answers it as it was)", security, response: webhook } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await operations.delete(ownerOf(imApp.id), RESOURCE));
  });
  const events = {
    tags,
    summary: "The app's latest operator events, newest first, with how their sending went (the console's notices)",
    security,
    querystring: OperatorEventsQuery,
    response: { 200: ImEntitiesEnvelope(OperatorEventView), ...errors },
  };
  app.get('/callbacks/operations/events', { schema: events }, async (request) => {
    const imApp = imAppOf(request);
    return imEntities(request, imApp, await operations.recent(ownerOf(imApp.id), request.query.limit));
  });
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CallbackRuleView,
  CallbackServiceSettings,
  CallbackServiceUpdate,
  CallbackTestResult,
  CreateCallbackRuleRequest,
  DeliveryLogEntry,
  DeliveryLogQuery,
  ImEntitiesEnvelope,
  ImEntitiesPage,
  ImEnvelope,
  RecentCallbacks,
  RetryResult,
  RotateSecretRequest,
  RuleParams,
  StorageRetryRequest,
  StoredKeysEnvelope,
  StoredRecordsQuery,
  StoredRecordView,
  UpdateCallbackRuleRequest,
} from '@parley/protocol';
import type { DeliveryLog } from '../../../modules/callbacks/delivery-log.js';
import type { CallbacksService } from '../../../modules/callbacks/service.js';
import { imData, imEntities } from '../../../modules/im/envelope.js';
import { IM_ADMIN_ERRORS, IM_TOKEN, imErrors } from '../../openapi.js';
import { absentBodyAsEmpty } from '../../optional-body.js';
import { imAppOf } from './context.js';

const NameParams = RuleParams;
const DateParams = Type.Object({ org: Type.String(), app: Type.String(), date: Type.String({ maxLength: 32, description: 'yyyyMMddHHmm' }) });
const tags = ['callbacks'];
const security = IM_TOKEN;
/** 403 also when the callback service is off (`callback_service_disabled`); 404 for an unknown rule. */
const errors = imErrors(...IM_ADMIN_ERRORS);
const settings = { 200: ImEnvelope(CallbackServiceSettings), ...errors };
const rule = { 200: ImEnvelope(CallbackRuleView), ...errors };

/** The Fastify instance with TypeBox typing, as the plugin receives it. */
type ImApp = Parameters<FastifyPluginAsyncTypebox>[0];

/**
 * Callback configuration (contract 4.4) and the exception store (4.6). Every route needs an
 * app-admin token (the IM context answers 401 without one and 403 for a user token); the IM
 * scope's per-app limit answers 429 `reach_limit`.
 */
export const imCallbackRoutes: FastifyPluginAsyncTypebox<{ callbacks: CallbacksService; recent?: DeliveryLog | undefined }> = async (app, { callbacks, recent }) => {
  switchRoutes(app, callbacks);
  ruleRoutes(app, callbacks);
  if (recent) recentAttemptRoutes(app, recent);
  exceptionStoreRoutes(app, callbacks);
};

/** The callback service and exception-store switches of the app. */
function switchRoutes(app: ImApp, callbacks: CallbacksService): void {
  app.get('/callbacks/service', { schema: { tags, summary: 'Read the callback and exception-store switches', security, response: settings } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await callbacks.settings(imApp.id));
  });
  app.put(
    '/callbacks/service',
    { schema: { tags, summary: 'Turn the callback service and the exception store on or off', security, body: CallbackServiceUpdate, response: settings } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await callbacks.updateSettings(imApp.id, request.body));
    },
  );
}

/** Callback rules: create, list, read, change, delete, and replace the secret. */
function ruleRoutes(app: ImApp, callbacks: CallbacksService): void {
  app.get('/callbacks/rules', { schema: { tags, summary: 'List the callback rules', security, response: { 200: ImEntitiesEnvelope(CallbackRuleView), ...errors } } }, async (request) => {
    const imApp = imAppOf(request);
    return imEntities(request, imApp, await callbacks.listRules(imApp.id));
  });
  app.post('/callbacks/rules', { schema: { tags, summary: 'Create a callback rule (at most 4 per app)', security, body: CreateCallbackRuleRequest, response: rule } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await callbacks.createRule(imApp.id, request.body));
  });
  app.get('/callbacks/rules/:name', { schema: { tags, summary: 'Read a callback rule with its state', security, params: NameParams, response: rule } }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await callbacks.view(await callbacks.rule(imApp.id, request.params.name)));
  });
  app.put(
    '/callbacks/rules/:name',
    { schema: { tags, summary: 'Change a callback rule', security, params: NameParams, body: UpdateCallbackRuleRequest, response: rule } },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await callbacks.updateRule(imApp.id, request.params.name, request.body));
    },
  );
  app.delete('/callbacks/rules/:name', { schema: { tags, summary: 'Delete a callback rule (answers it as it was)', security, params: NameParams, response: rule } }, async (request) => {
    const imApp = imAppOf(request);
    const view = await callbacks.view(await callbacks.rule(imApp.id, request.params.name));
    await callbacks.deleteRule(imApp.id, request.params.name);
    return imData(request, imApp, view);
  });
  const rotate = {
    tags,
    summary: 'Replace the rule secret; the previous one still signs beside it for overlap_seconds (default 86400)',
    security,
    params: NameParams,
    body: RotateSecretRequest,
    response: rule,
  };
  app.post('/callbacks/rules/:name/secret', { preValidation: absentBodyAsEmpty, schema: rotate }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await callbacks.rotateSecret(imApp.id, request.params.name, request.body.overlap_seconds));
  });
  const endOverlap = { tags, summary: "End a rotation's overlap: records are signed with the current secret only", security, params: NameParams, response: rule };
  app.delete('/callbacks/rules/:name/secret/previous', { schema: endOverlap }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await callbacks.endOverlap(imApp.id, request.params.name));
  });
  const test = {
    tags,
    summary: 'Send a test record to the rule: answers the exact signed strings, the request and the receiver\'s answer',
    security,
    'x-no-body': true,
    params: NameParams,
    response: { 200: ImEnvelope(CallbackTestResult), ...errors },
  };
  app.post('/callbacks/rules/:name/test', { schema: test }, async (request) => {
    const imApp = imAppOf(request);
    return imData(request, imApp, await callbacks.testRule(imApp, request.params.name));
  });
}

/** Recent attempts of this instance, for the console's live tail. */
function recentAttemptRoutes(app: ImApp, recent: DeliveryLog): void {
  app.get(
    '/callbacks/deliveries',
    {
      schema: {
        tags,
        summary: 'The delivery log: callback attempts of every instance, newest first, by msg_id, user, rule, status and time (`cursor` continues)',
        security,
        querystring: DeliveryLogQuery,
        response: { 200: ImEntitiesPage(DeliveryLogEntry), ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const page = await recent.search(imApp.id, request.query);
      const body = imEntities(request, imApp, page.entities);
      return page.cursor === undefined ? body : { ...body, cursor: page.cursor };
    },
  );
  app.get(
    '/callbacks/deliveries/recent',
    {
      schema: {
        tags,
        summary: 'Recent callback attempts of every instance (from the delivery log) and per-minute counts by result (console live tail)',
        security,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })) }, { additionalProperties: false }),
        response: { 200: ImEnvelope(RecentCallbacks), ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      return imData(request, imApp, await recent.view(imApp.id, request.query.limit ?? 50));
    },
  );
}

/** The exception store: its keys, the stored records of a date key, and their re-send. */
function exceptionStoreRoutes(app: ImApp, callbacks: CallbacksService): void {
  const info = { tags, summary: 'Keys of the exception store with their size and re-send count', security, response: { 200: StoredKeysEnvelope, ...errors } };
  app.get('/callbacks/storage/info', { schema: info }, async (request) => {
    const imApp = imAppOf(request);
    return { ...imData(request, imApp, await callbacks.storageInfo(imApp)), date_key_zone: callbacks.dateKeyZone };
  });
  // The spec's sample request spells the segment `callback`; both spellings work.
  for (const prefix of ['/callbacks', '/callback']) {
    app.post(
      `${prefix}/storage/retry`,
      { schema: { tags, summary: 'Re-send the stored records of a date key (asynchronous)', security, body: StorageRetryRequest, response: { 200: ImEnvelope(RetryResult), ...errors } } },
      async (request) => {
        const imApp = imAppOf(request);
        return imData(request, imApp, await callbacks.retry(imApp, request.body));
      },
    );
  }
  app.get(
    '/callbacks/storage/:date',
    {
      schema: {
        tags,
        summary: 'Records stored under a date key, with their last error, a page at a time (`cursor` continues)',
        security,
        params: DateParams,
        querystring: StoredRecordsQuery,
        response: { 200: ImEntitiesPage(StoredRecordView), ...errors },
      },
    },
    async (request) => {
      const imApp = imAppOf(request);
      const page = await callbacks.storedRecords(imApp, request.params.date, request.query);
      const body = imEntities(request, imApp, page.entities);
      return page.cursor === undefined ? body : { ...body, cursor: page.cursor };
    },
  );
}

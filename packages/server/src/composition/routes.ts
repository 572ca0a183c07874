/**
 * Every surface on the Fastify instance: the cross-cutting hooks and plugins, OpenAPI, health,
 * the console API, media, the send-message route and lane, IM, and the web console.
 */
import { AUTH_FAILURE_WINDOW_MS } from '../http/auth-failures.js';
import { memoryWindow, redisWindow } from '../http/fixed-window.js';
import { registerInputGuard } from '../http/input-guard.js';
import { registerOpenApi } from '../http/openapi.js';
import { registerBearerAuth } from '../http/plugins/bearer.js';
import type { HttpPipeline } from '../http/pipeline.js';
import { registerErrorHandling } from '../http/plugins/errors.js';
import { registerPipeline } from '../http/plugins/pipeline.js';
import { registerRateLimit } from '../http/plugins/rate-limit.js';
import { accountsRoutes, TAKEN_NAMES_PER_HOUR, TAKEN_NAMES_WINDOW_MS } from '../http/routes/api/accounts.js';
import { channelAssociationRoutes } from '../http/routes/api/channel-associations.js';
import { channelConversationRoutes } from '../http/routes/api/channel-conversations.js';
import { channelConversationToolRoutes } from '../http/routes/api/channel-conversation-tools.js';
import { channelCustomerCallRoutes } from '../http/routes/api/channel-customer-calls.js';
import { channelAutomationRoutes } from '../http/routes/api/channel-automation.js';
import { cannedReplyRoutes } from '../http/routes/api/channel-canned-replies.js';
import { channelEventRoutes } from '../http/routes/api/channel-events.js';
import { channelIngestRoutes } from '../http/routes/api/channel-ingest.js';
import { channelMediaRoutes } from '../http/routes/api/channel-media.js';
import { channelReportRoutes } from '../http/routes/api/channel-reports.js';
import { operationsRoutes } from '../http/routes/api/operations.js';
import { consoleRoutes } from '../http/routes/console.js';
import { healthRoutes } from '../http/routes/health.js';
import { imRoutes } from '../http/routes/im/index.js';
import { mediaRoutes } from '../http/routes/media.js';
import { SendMessageLane } from '../http/send-message/lane.js';
import { sendMessageRoute } from '../http/send-message/serve.js';
import '../http/types.js';
import type { LaneSlot, ParleyFastify } from './http-server.js';

/** The pipeline every route shares (the lane runs it too), the input guard, OpenAPI and health. */
async function registerCommon(app: ParleyFastify, pipeline: HttpPipeline): Promise<void> {
  const { storage, metrics, redis, membership } = app.parley;
  registerPipeline(app, pipeline);
  app.decorateRequest('principal', null);
  // Only JSON is accepted on generic routes; text/plain would otherwise be parsed as a string.
  app.removeContentTypeParser('text/plain');

  registerErrorHandling(app);
  registerInputGuard(app);

  await registerOpenApi(app);

  await app.register(healthRoutes, {
    storage,
    metrics,
    extraChecks: redis ? [async function redis_ping() { await redis.ping(); }] : [],
    instances: () => membership.view(),
  });
}

/** Registers every surface on `app` (its `parley` decorated) and sets the send-message lane, both on `pipeline`. */
export async function registerSurfaces(app: ParleyFastify, pipeline: HttpPipeline, lane: LaneSlot): Promise<void> {
  await registerCommon(app, pipeline);
  const { config, clock, redis, accounts, channel, im, callbacks, operations } = app.parley;

  // Fixed windows on the injected clock, or in Redis (shared by instances) when it is configured.
  const fixedWindow = (name: string, max: number, windowMs: number) =>
    redis ? redisWindow(redis, `${config.redisPrefix}${name}`, { max, windowMs }) : memoryWindow(clock, { max, windowMs });

  // Customer-service console API: bearer auth and a per-client rate limit.
  await app.register(async (api) => {
    await registerRateLimit(api, {
      max: config.apiRateLimitPerMinute,
      timeWindowMs: 60_000,
      redis,
      nameSpace: `${config.redisPrefix}rl-api-`,
    });
    registerBearerAuth(api, accounts);
    await api.register(accountsRoutes, { accounts, takenNames: fixedWindow('rl-taken-names-', TAKEN_NAMES_PER_HOUR, TAKEN_NAMES_WINDOW_MS) });
    await api.register(channelAssociationRoutes, { channel });
    await api.register(channelConversationRoutes, { channel });
    await api.register(channelConversationToolRoutes, { channel });
    await api.register(channelAutomationRoutes, { channel });
    await api.register(cannedReplyRoutes, { channel });
    await api.register(channelMediaRoutes, { channel });
    await api.register(channelEventRoutes, { channel, accounts });
    await api.register(channelReportRoutes, { channel });
    await api.register(operationsRoutes, { operations: operations.service, accounts });
  });
  // Uploaded media, public by unguessable id, on a path of their own, with a per-IP limit.
  await app.register(mediaRoutes, { channel, limit: fixedWindow('rl-media-', config.mediaRateLimitPerMinute, 60_000) });
  // The send-message API: HMAC-authenticated, raw-body surface of its own (no bearer, no /api
  // limit: a per-association limit of its own, shared by instances through Redis when they are).
  // The lane serves it on sockets; the route documents it and serves the rest.
  const failureWindow = (name: string) => fixedWindow(name, config.authFailuresPerMinute, AUTH_FAILURE_WINDOW_MS);
  const sendMessage = sendMessageRoute(channel.ingest, {
    own: fixedWindow('rl-channel-', config.channelRateLimitPerSecond, 1000),
    failures: failureWindow('rl-channel-fail-'),
  });
  await app.register(channelIngestRoutes, { route: sendMessage });
  await app.register(channelCustomerCallRoutes, { route: sendMessage, calls: channel.customerCalls });
  lane.current = new SendMessageLane({ pipeline, route: sendMessage, log: app.log });

  // IM surface: /management/apps and /{org}/{app}/... with its own auth and per-app rate limit.
  await app.register(imRoutes, {
    im,
    accounts,
    limits: {
      own: fixedWindow('rl-im-', config.imRateLimitPerSecond, 1000),
      userSends: fixedWindow('rl-im-user-', config.imUserSendRateLimitPerSecond, 1000),
      userChanges: fixedWindow('rl-im-change-', config.imUserChangeRateLimitPerSecond, 1000),
      fileDownloads: fixedWindow('rl-im-file-', config.imFileDownloadRateLimitPerMinute, 60_000),
      failures: failureWindow('rl-im-fail-'),
    },
    msync: { provisionTimeoutMs: config.msyncProvisionTimeoutMs, pendingPerIp: config.msyncPendingPerIp },
    heartbeatMs: config.imHeartbeatSeconds * 1000,
    fileMaxBytes: config.imFileMaxBytes,
    clock,
    callbacks: callbacks.service,
    recentCallbacks: callbacks.recent,
    presend: callbacks.presend.service,
    operations: operations.service,
  });
  // The web console (static bundle) at /console; `/` leads there.
  await app.register(consoleRoutes, { dir: config.consoleDir });
}

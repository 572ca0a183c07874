/**
 * buildApp(config, deps): everything Parley serves, registered on one Fastify instance that
 * never listens. main.ts listens; tests use inject().
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createServer, type IncomingMessage } from 'node:http';
import { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { requestId } from './kernel/ids.js';
import { lazyChildLoggerFactory, loggerOptions } from './kernel/logger.js';
import { bootstrapAccounts, type BootstrapResult } from './modules/accounts/bootstrap.js';
import { AccountsService } from './modules/accounts/service.js';
import { createCallbacks, type CallbacksModule } from './modules/callbacks/index.js';
import { createImModule, type ImModule } from './modules/im/index.js';
import type { PostSendHook } from './modules/im/post-send.js';
import type { AppCreated } from '@parley/protocol';
import { registerBearerAuth } from './http/plugins/bearer.js';
import { registerErrorHandling } from './http/plugins/errors.js';
import { memoryWindow, redisWindow } from './http/fixed-window.js';
import { createMetricsRegistry, registerHttpMetrics } from './http/plugins/metrics.js';
import { SendMessageLane } from './http/send-message-lane.js';
import { registerRateLimit } from './http/plugins/rate-limit.js';
import { accountsRoutes } from './http/routes/api/accounts.js';
import { channelAssociationRoutes } from './http/routes/api/channel-associations.js';
import { channelConversationRoutes } from './http/routes/api/channel-conversations.js';
import { channelEventRoutes } from './http/routes/api/channel-events.js';
import { channelIngestRoutes } from './http/routes/api/channel-ingest.js';
import { channelMediaRoutes } from './http/routes/api/channel-media.js';
import { loadOrCreateSecretKey, secretBox } from './kernel/secret-box.js';
import { pubsubEventBus } from './modules/channel/events.js';
import { createChannelModule, type ChannelModule } from './modules/channel/index.js';
import { consoleRoutes } from './http/routes/console.js';
import { healthRoutes } from './http/routes/health.js';
import { imRoutes } from './http/routes/im/index.js';
import './http/types.js';
import { inProcessCoordination } from './modules/coordination/in-process.js';
import type { Coordination } from './modules/coordination/ports.js';
import { redisCoordination } from './modules/coordination/redis.js';
import { RedisPresence } from './modules/im/redis-presence.js';
import type { SocketLimits } from './modules/im/socket-limits.js';
import type { JobQueue } from './modules/jobs/ports.js';
import { SqlJobQueue } from './modules/jobs/sql-queue.js';
import type { OutboundSender } from './modules/outbound/ports.js';
import { UndiciOutboundSender } from './modules/outbound/sender.js';
import { ThreadedOutboundSender } from './modules/outbound/threaded.js';
import { kyselyAccountsRepository } from './storage/repositories/accounts.js';
import { openStorage, type Storage } from './storage/index.js';

export interface AppDeps {
  clock?: Clock;
  /** A storage opened by the caller (kept open on close); by default one is opened from config. */
  storage?: Storage;
  outbound?: OutboundSender;
  /** Where log lines go (default stdout); tests capture them. */
  logStream?: DestinationStream;
  /** What runs after each IM message; default: the post-send callbacks. */
  postSend?: PostSendHook;
  /** IM socket bounds; default: made from the config (tests inject one to run its close grace). */
  imSockets?: SocketLimits;
}

/** Services of a running app, reachable by tests and main.ts. */
export interface Parley {
  config: Config;
  clock: Clock;
  storage: Storage;
  metrics: Registry;
  redis: Redis | undefined;
  accounts: AccountsService;
  bootstrap: BootstrapResult;
  /** Durable hand-off for work after a request; workers start when the app is ready. */
  jobs: JobQueue & { notifyAll(): void };
  /** The shared sender for customer-controlled URLs. */
  outbound: OutboundSender;
  /** Pub/sub and run-once tasks across instances (in-process, or Redis when REDIS_URL is set). */
  coordination: Coordination;
  channel: ChannelModule;
  im: ImModule;
  /** Credentials of the demo IM app, set only on the boot that created it. */
  imDemoApp: AppCreated | undefined;
  /** Post-send callbacks: rules, delivery engine, exception store. */
  callbacks: CallbacksModule;
}

declare module 'fastify' {
  interface FastifyInstance {
    parley: Parley;
  }
}

/** A request's id: its `x-request-id` when that is a short token, else a new one. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : requestId();
}

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const clock = deps.clock ?? systemClock;
  const storage = deps.storage ?? (await openStorage(config, clock));
  const ownsStorage = deps.storage === undefined;
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }) : undefined;
  redis?.on('error', () => undefined); // reported through /readyz, not as an unhandled event

  // The send-message lane serves its route on the socket before Fastify sees the request
  // (http/send-message-lane.ts); it is set once the channel module exists.
  const lane: { current?: SendMessageLane } = {};
  const app = Fastify({
    logger: deps.logStream ? { ...loggerOptions(config.logLevel), stream: deps.logStream } : loggerOptions(config.logLevel),
    genReqId: requestIdOf,
    serverFactory: (handler, options) => {
      const server = createServer((req, res) => {
        if (!lane.current?.handle(req, res)) handler(req, res);
      });
      // What Fastify sets on a server it makes itself (its defaults are filled in by now).
      const timeouts = options as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout;
      server.requestTimeout = timeouts.requestTimeout;
      server.setTimeout(timeouts.connectionTimeout);
      return server;
    },
    requestIdHeader: false,
    // Per-request loggers are made on their first enabled line (kernel/logger.ts).
    childLoggerFactory: lazyChildLoggerFactory as unknown as FastifyServerOptions['childLoggerFactory'],
    bodyLimit: config.bodyLimitBytes,
    trustProxy: false,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const metrics = createMetricsRegistry();
  const accountsRepo = kyselyAccountsRepository(storage.db);
  const accounts = new AccountsService(accountsRepo, clock, config.tokenTtlSeconds);
  const bootstrap = await bootstrapAccounts(accountsRepo, clock, {
    adminUsername: config.adminUsername,
    adminPassword: config.adminPassword,
    seedDemo: config.seedDemo,
  });

  const onSingletonError = (name: string, error: unknown) => app.log.error({ err: error, task: name }, 'periodic task failed');
  const coordination = redis ? redisCoordination(redis, onSingletonError, config.redisPrefix) : inProcessCoordination(onSingletonError);
  const jobs = new SqlJobQueue({
    db: storage.db,
    capabilities: storage.capabilities,
    clock,
    logger: app.log,
    ...(coordination.kind === 'redis' ? { pubsub: coordination.pubsub } : {}),
  });
  const outbound =
    deps.outbound ??
    (config.outboundThread
      ? new ThreadedOutboundSender({ allowPrivate: config.allowPrivateCallbacks }, (error) =>
          app.log.error({ err: error }, 'outbound worker thread failed; the next request starts a new one'),
        )
      : new UndiciOutboundSender({ allowPrivate: config.allowPrivateCallbacks }));
  const secrets = secretBox(loadOrCreateSecretKey(config.secretKey, config.dataDir));
  const callbacks = createCallbacks({
    db: storage.db,
    secrets,
    config: config.callbacks,
    clock,
    jobs,
    outbound,
    metrics,
    logger: app.log,
    ...(config.workers ? { singletons: coordination.singletons } : {}),
    // Ban windows, counts and ends shared by every instance.
    ...(redis ? { redis: { client: redis, prefix: config.redisPrefix } } : {}),
  });
  // Sockets on another instance are reached through Redis; one instance keeps them in process.
  const presence = redis
    ? new RedisPresence({
        redis,
        pubsub: coordination.pubsub,
        clock,
        prefix: config.redisPrefix,
        onError: (error) => app.log.warn({ err: error }, 'IM presence: Redis unreachable'),
      })
    : undefined;
  const im = createImModule({
    db: storage.db,
    clock,
    jobs,
    tokenTtlSeconds: config.imTokenTtlSeconds,
    sockets: deps.imSockets ?? { bufferBytes: config.imSocketBufferBytes, perUser: config.imSocketsPerUser, perApp: config.imSocketsPerApp },
    commitConcurrency: storage.capabilities.multiWriter ? 4 : 1,
    postSend: deps.postSend ?? callbacks.hook,
    ...(presence ? { presence } : {}),
  });
  const imDemoApp = config.seedDemo ? await im.apps.ensureDemoApp() : undefined;

  const channel = createChannelModule({
    db: storage.db,
    clock,
    accounts,
    jobs,
    outbound,
    secrets,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    metrics,
    singleWriter: !storage.capabilities.multiWriter,
    direct: storage.direct,
    // Live events reach agents on every instance when instances coordinate through Redis.
    ...(coordination.kind === 'redis' ? { events: pubsubEventBus(coordination.pubsub) } : {}),
  });
  accounts.onAgentStatus(async (tenantId, agentId, status) => {
    if (status === 'online') await channel.dispatcher.agentAvailable(tenantId, agentId);
  });

  app.decorate('parley', { config, clock, storage, metrics, redis, accounts, bootstrap, jobs, outbound, coordination, channel, im, imDemoApp, callbacks });
  if (config.workers) {
    coordination.singletons.every('accounts.purge-tokens', 10 * 60_000, async () => {
      await accounts.purgeExpiredTokens();
    });
    coordination.singletons.every('im.purge-tokens', 10 * 60_000, async () => {
      await im.apps.purgeExpiredTokens();
    });
  }
  app.decorateRequest('startedAt', 0);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = Date.now();
    reply.header('x-request-id', request.id);
  });
  // Only JSON is accepted on generic routes; text/plain would otherwise be parsed as a string.
  app.removeContentTypeParser('text/plain');

  registerErrorHandling(app);
  const observeRequest = registerHttpMetrics(app, metrics);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Parley', version: '0.1.0', description: 'Customer-service REST channel and IM post-send callbacks' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, {
    storage,
    metrics,
    extraChecks: redis ? [async function redis_ping() { await redis.ping(); }] : [],
  });

  // Customer-service console API: bearer auth and a per-client rate limit.
  await app.register(async (api) => {
    await registerRateLimit(api, {
      max: config.apiRateLimitPerMinute,
      timeWindowMs: 60_000,
      redis,
      nameSpace: `${config.redisPrefix}rl-api-`,
    });
    registerBearerAuth(api, accounts);
    await api.register(accountsRoutes, { accounts });
    await api.register(channelAssociationRoutes, { channel });
    await api.register(channelConversationRoutes, { channel });
    await api.register(channelMediaRoutes, { channel });
    await api.register(channelEventRoutes, { channel, accounts });
  });
  // The send-message API: HMAC-authenticated, raw-body surface of its own (no bearer, no /api
  // limit: a per-association limit of its own, shared by instances through Redis when they are).
  // The lane serves it on sockets; the route documents it and serves the rest.
  const ingestWindow = { max: config.channelRateLimitPerSecond, windowMs: 1000 };
  const ingestLimiter = redis ? redisWindow(redis, `${config.redisPrefix}rl-channel-`, ingestWindow) : memoryWindow(clock, ingestWindow);
  await app.register(channelIngestRoutes, { ingest: channel.ingest, limiter: ingestLimiter });
  const sendMessageLane = new SendMessageLane({ ingest: channel.ingest, limiter: ingestLimiter, observe: observeRequest, log: app.log, requestId: requestIdOf });
  lane.current = sendMessageLane;
  app.addHook('preClose', async () => sendMessageLane.close());

  // IM surface: /management/apps and /{org}/{app}/... with its own auth and per-app rate limit.
  await app.register(imRoutes, {
    im,
    accounts,
    redis,
    rateLimitPerSecond: config.imRateLimitPerSecond,
    heartbeatMs: config.imHeartbeatSeconds * 1000,
    callbacks: callbacks.service,
    recentCallbacks: callbacks.recent,
    rateLimitNameSpace: `${config.redisPrefix}rl-im-`,
  });
  // The web console (static bundle) at /console; `/` leads there.
  await app.register(consoleRoutes, { dir: config.consoleDir });

  // Workers start once every module has registered its queues.
  app.addHook('onReady', async () => {
    await presence?.start();
    await callbacks.start();
    if (config.workers) jobs.start();
  });
  // Fastify has stopped accepting and finished in-flight requests by now; then let running jobs
  // (deliveries) finish, and close the outbound pools and storage last.
  app.addHook('onClose', async () => {
    await presence?.stop();
    await coordination.close();
    await jobs.stop();
    await callbacks.stop();
    await outbound.close();
    if (ownsStorage) await storage.close();
    if (redis) redis.disconnect();
  });

  return app;
}

/**
 * buildApp(config, deps): everything Parley serves, registered on one Fastify instance that
 * never listens. main.ts listens; tests use inject().
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import type { Registry } from 'prom-client';
import type { Config, ServerLimits } from './config/index.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { requestId } from './kernel/ids.js';
import { loggerOptions } from './kernel/logger.js';
import { bootstrapAccounts, type BootstrapResult } from './modules/accounts/bootstrap.js';
import { LoginBackoff } from './modules/accounts/login-backoff.js';
import { Passwords } from './modules/accounts/password.js';
import { PasswordPool } from './modules/accounts/password-pool.js';
import { AccountsService } from './modules/accounts/service.js';
import { createCallbacks, type CallbacksModule } from './modules/callbacks/index.js';
import { createImModule, type ImModule } from './modules/im/index.js';
import type { PostSendHook } from './modules/im/post-send.js';
import type { AppCreated } from '@parley/protocol';
import { registerBearerAuth } from './http/plugins/bearer.js';
import { frameworkError, MAX_PARAM_LENGTH, registerErrorHandling } from './http/plugins/errors.js';
import { buildValidatorPerPart, registerInputGuard } from './http/input-guard.js';
import { AUTH_FAILURE_WINDOW_MS } from './http/auth-failures.js';
import { clientAddress, trustProxy } from './http/client-address.js';
import { memoryWindow, redisWindow } from './http/fixed-window.js';
import { createMetricsRegistry, registerHttpMetrics } from './http/plugins/metrics.js';
import { SendMessageLane } from './http/send-message-lane.js';
import { registerRateLimit } from './http/plugins/rate-limit.js';
import { docsContentSecurityPolicy, registerSecurityHeaders } from './http/plugins/security-headers.js';
import { mediaRoutes } from './http/routes/media.js';
import { accountsRoutes, TAKEN_NAMES_PER_HOUR, TAKEN_NAMES_WINDOW_MS } from './http/routes/api/accounts.js';
import { channelAssociationRoutes } from './http/routes/api/channel-associations.js';
import { channelConversationRoutes } from './http/routes/api/channel-conversations.js';
import { channelEventRoutes } from './http/routes/api/channel-events.js';
import { channelIngestRoutes } from './http/routes/api/channel-ingest.js';
import { channelMediaRoutes } from './http/routes/api/channel-media.js';
import { loadOrCreateSecretKey, secretBox, type SecretBox } from './kernel/secret-box.js';
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
import { kyselyCallbacksRepository } from './storage/repositories/callbacks.js';
import { kyselyAssociationsRepository, kyselyRoutingDirectory } from './storage/repositories/channel-associations.js';
import { kyselyConversationsRepository } from './storage/repositories/channel-conversations.js';
import { kyselyDeliveriesRepository } from './storage/repositories/channel-deliveries.js';
import { kyselyMediaRepository } from './storage/repositories/channel-media.js';
import { kyselyImAppsRepository, kyselyImUsersRepository } from './storage/repositories/imApps.js';
import { kyselyImGroupsRepository } from './storage/repositories/imGroups.js';
import { kyselyImMessagesRepository } from './storage/repositories/imMessages.js';
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
  /** Password hashing pool and login back-off, shared by console logins and IM password grants. */
  passwords: Passwords;
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

/**
 * The node:http server, with the limits against slow and idle clients (config.server): a request
 * must arrive whole within requestTimeoutMs (headers within headersTimeoutMs) or it is answered
 * 408 and closed; connections beyond maxConnections are closed as they are accepted.
 */
export function createHttpServer(limits: ServerLimits, listener: RequestListener): Server {
  // How often node:http looks for requests past their time: often enough for the shortest limit.
  const connectionsCheckingInterval = Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 2)));
  const server = createServer({ requestTimeout: limits.requestTimeoutMs, headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval }, listener);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
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
  const trusted = trustProxy(config.trustProxy);
  const app = Fastify({
    logger: deps.logStream ? { ...loggerOptions(config.logLevel), stream: deps.logStream } : loggerOptions(config.logLevel),
    genReqId: requestIdOf,
    serverFactory: (handler) => createHttpServer(config.server, (req, res) => {
      if (!lane.current?.handle(req, res)) handler(req, res);
    }),
    requestIdHeader: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkError,
    bodyLimit: config.bodyLimitBytes,
    // Per-IP limits need the client's address, not a load balancer's (http/client-address.ts).
    trustProxy: trusted ? (address: string) => trusted(address) : false,
    return503OnClosing: true,
    // Coercion for query strings, params and headers only (http/input-guard.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
    schemaController: { compilersFactory: { buildValidator: buildValidatorPerPart() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const metrics = createMetricsRegistry();
  const accountsRepo = kyselyAccountsRepository(storage.db);
  // One pool bounds every password hash of the process; one back-off covers console logins and
  // IM password grants, so an IP guessing at both is counted once.
  const passwords = new Passwords(
    new PasswordPool({ concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue }),
    new LoginBackoff(clock),
  );
  const accounts = new AccountsService(accountsRepo, clock, config.tokenTtlSeconds, passwords);
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
  const outboundOptions = {
    allowPrivate: config.allowPrivateCallbacks,
    connectionsPerOrigin: config.outboundConnectionsPerOrigin,
    connectionsPerKey: config.outboundConnectionsPerKey,
  };
  const outbound =
    deps.outbound ??
    (config.outboundThread
      ? new ThreadedOutboundSender(outboundOptions, (error) =>
          app.log.error({ err: error }, 'outbound worker thread failed; the next request starts a new one'),
        )
      : new UndiciOutboundSender(outboundOptions));
  const secrets = secretBox(loadOrCreateSecretKey(config.secretKey, config.dataDir));
  const repositories = storageRepositories(storage, secrets);
  const callbacks = createCallbacks({
    db: storage.db,
    repo: repositories.callbacks,
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
    repositories: repositories.im,
    clock,
    jobs,
    tokenTtlSeconds: config.imTokenTtlSeconds,
    passwords,
    sockets: deps.imSockets ?? { bufferBytes: config.imSocketBufferBytes, perUser: config.imSocketsPerUser, perApp: config.imSocketsPerApp },
    commitConcurrency: storage.capabilities.multiWriter ? 4 : 1,
    postSend: deps.postSend ?? callbacks.hook,
    ...(presence ? { presence } : {}),
  });
  const imDemoApp = config.seedDemo ? await im.apps.ensureDemoApp() : undefined;

  const channel = createChannelModule({
    repositories: repositories.channel,
    clock,
    accounts,
    jobs,
    outbound,
    secrets,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    media: config.media,
    metrics,
    // Live events reach agents on every instance when instances coordinate through Redis.
    ...(coordination.kind === 'redis' ? { events: pubsubEventBus(coordination.pubsub) } : {}),
  });
  accounts.onAgentStatus(async (tenantId, agentId, status) => {
    if (status === 'online') await channel.dispatcher.agentAvailable(tenantId, agentId);
  });

  app.decorate('parley', { config, clock, storage, metrics, redis, accounts, passwords, bootstrap, jobs, outbound, coordination, channel, im, imDemoApp, callbacks });
  if (config.workers) {
    coordination.singletons.every('accounts.purge-tokens', 10 * 60_000, async () => {
      await accounts.purgeExpiredTokens();
    });
    coordination.singletons.every('im.purge-tokens', 10 * 60_000, async () => {
      await im.apps.purgeExpiredTokens();
    });
    coordination.singletons.every('channel.media-retention', 60 * 60_000, async () => {
      await channel.media.sweepExpired();
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
  registerSecurityHeaders(app);
  registerInputGuard(app);
  const observeRequest = registerHttpMetrics(app, metrics);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Parley', version: '0.1.0', description: 'Customer-service REST channel and IM post-send callbacks' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, transformStaticCSP: docsContentSecurityPolicy });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, {
    storage,
    metrics,
    extraChecks: redis ? [async function redis_ping() { await redis.ping(); }] : [],
  });

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
    await api.register(channelMediaRoutes, { channel });
    await api.register(channelEventRoutes, { channel, accounts });
  });
  // Uploaded media, public by unguessable id, on a path of their own.
  await app.register(mediaRoutes, { channel });
  // The send-message API: HMAC-authenticated, raw-body surface of its own (no bearer, no /api
  // limit: a per-association limit of its own, shared by instances through Redis when they are).
  // The lane serves it on sockets; the route documents it and serves the rest.
  const failureWindow = (name: string) => fixedWindow(name, config.authFailuresPerMinute, AUTH_FAILURE_WINDOW_MS);
  const ingestLimits = { own: fixedWindow('rl-channel-', config.channelRateLimitPerSecond, 1000), failures: failureWindow('rl-channel-fail-') };
  await app.register(channelIngestRoutes, { ingest: channel.ingest, limits: ingestLimits });
  const sendMessageLane = new SendMessageLane({
    ingest: channel.ingest,
    limits: ingestLimits,
    observe: observeRequest,
    log: app.log,
    requestId: requestIdOf,
    clientAddress: (req) => clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trusted),
  });
  lane.current = sendMessageLane;
  app.addHook('preClose', async () => sendMessageLane.close());

  // IM surface: /management/apps and /{org}/{app}/... with its own auth and per-app rate limit.
  await app.register(imRoutes, {
    im,
    accounts,
    limits: { own: fixedWindow('rl-im-', config.imRateLimitPerSecond, 1000), failures: failureWindow('rl-im-fail-') },
    heartbeatMs: config.imHeartbeatSeconds * 1000,
    callbacks: callbacks.service,
    recentCallbacks: callbacks.recent,
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

/** The concrete repositories of the modules, for the engine `storage` runs on. */
function storageRepositories(storage: Storage, secrets: SecretBox) {
  const { db } = storage;
  // A single writer (SQLite) may keep known customers' open conversations in memory and needs
  // no per-tenant lock around a media upload's quota check.
  const singleWriter = !storage.capabilities.multiWriter;
  return {
    callbacks: kyselyCallbacksRepository(db, secrets),
    im: {
      apps: kyselyImAppsRepository(db),
      users: kyselyImUsersRepository(db),
      groups: kyselyImGroupsRepository(db),
      messages: kyselyImMessagesRepository(db),
    },
    channel: {
      associations: kyselyAssociationsRepository(db),
      directory: kyselyRoutingDirectory(db),
      conversations: kyselyConversationsRepository(db, { rememberOpenConversations: singleWriter, direct: storage.direct }),
      deliveries: kyselyDeliveriesRepository(db),
      media: kyselyMediaRepository(db, { lockTenant: !singleWriter }),
    },
  };
}

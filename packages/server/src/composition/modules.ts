/**
 * The modules built from config, in dependency order: accounts (and bootstrap), coordination,
 * the job queue, the outbound sender, operator events (raised by callbacks and the channel),
 * callbacks, IM (with Redis presence), channel.
 */
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Config } from '../config/index.js';
import type { Clock } from '../kernel/clock.js';
import { randomHex } from '../kernel/ids.js';
import { loadOrCreateSecretKey, secretBox } from '../kernel/secret-box.js';
import { bootstrapAccounts } from '../modules/accounts/bootstrap.js';
import { LoginBackoff } from '../modules/accounts/login-backoff.js';
import { Passwords } from '../modules/accounts/password.js';
import { PasswordPool } from '../modules/accounts/password-pool.js';
import { AccountsService } from '../modules/accounts/service.js';
import { createCallbacks } from '../modules/callbacks/index.js';
import { Membership } from '../modules/cluster/membership.js';
import { promClusterMetrics } from '../modules/cluster/metrics.js';
import { pubsubEventBus } from '../modules/channel/events.js';
import { createChannelModule } from '../modules/channel/index.js';
import { inProcessCoordination } from '../modules/coordination/in-process.js';
import type { Coordination } from '../modules/coordination/ports.js';
import { redisCoordination } from '../modules/coordination/redis.js';
import { createImModule } from '../modules/im/index.js';
import { mediaDir } from '../modules/media/store.js';
import { createOperations } from '../modules/operations/index.js';
import { promImMetrics } from '../modules/im/metrics.js';
import { RedisPresence } from '../modules/im/redis-presence.js';
import type { OutboundSender } from '../modules/outbound/ports.js';
import { UndiciOutboundSender } from '../modules/outbound/sender.js';
import { ThreadedOutboundSender } from '../modules/outbound/threaded.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { Storage } from '../storage/index.js';
import type { StorageTransaction } from '../storage/repositories/transaction.js';
import { SqlJobQueue } from '../storage/jobs/sql-queue.js';
import { kyselyInstancesRepository } from '../storage/repositories/instances.js';
import type { AppDeps, Parley } from './parley.js';
import { accountsRepository, storageRepositories } from './repositories.js';

/** What the modules are built on: made by buildApp before any module. */
export interface Foundation {
  config: Config;
  deps: AppDeps;
  clock: Clock;
  storage: Storage;
  redis: Redis | undefined;
  /** The app's metrics registry (the HTTP pipeline counts into it too). */
  metrics: Registry;
  log: FastifyBaseLogger;
}

/** The services of `app.parley`, and the IM presence (started and stopped with the app). */
export type Modules = Parley & { presence: RedisPresence | undefined };

export async function buildModules(base: Foundation): Promise<Modules> {
  const { config, deps, clock, storage, redis, metrics, log } = base;
  const coordination = buildCoordination(base);
  const { jobs, membership } = buildJobQueue(base, coordination, metrics);
  const secrets = secretBox(loadOrCreateSecretKey(config.secretKey, config.dataDir));
  const repositories = storageRepositories(storage, secrets, jobs);
  const { uow } = repositories;
  const { accounts, passwords, bootstrap } = await buildAccounts(base, uow);
  const outbound = deps.outbound ?? outboundSender(config, log);
  const operations = createOperations({ repo: repositories.operations, uow, jobs, outbound, clock, logger: log });
  const callbacks = buildCallbacks(base, { uow, repositories, coordination, jobs, outbound, alerts: operations.events });
  // Jobs taken over from a dead instance may be on a rule queue this instance never worked.
  membership.onTakeOver((queues) => queues.forEach((queue) => callbacks.delivery.adoptQueue(queue)));
  const presence = redisPresence(base, coordination);
  const im = createImModule({
    uow,
    repositories: repositories.im,
    instanceId: membership.id,
    // On one writer (SQLite) no other instance exists: a message recorded by another id was pushed
    // (or not) by a process that has since stopped.
    ...(storage.capabilities.multiWriter ? { instanceAlive: (id: string) => membership.isAlive(id) } : {}),
    clock,
    jobs,
    tokenTtlSeconds: config.imTokenTtlSeconds,
    recallSeconds: config.imRecallSeconds,
    passwords,
    sockets: deps.imSockets ?? { bufferBytes: config.imSocketBufferBytes, perUser: config.imSocketsPerUser, perApp: config.imSocketsPerApp },
    postSend: deps.postSend ?? callbacks.hook,
    operations: callbacks.operations,
    preSend: callbacks.presend.check,
    metrics: promImMetrics(metrics),
    logger: log,
    pubsub: coordination.pubsub,
    ...(presence ? { presence } : {}),
    settings: coordination.settings,
    media: { dir: mediaDir(config.dataDir), limits: config.media },
    historyMs: config.imHistoryMs,
  });
  const imDemoApp = config.seedDemo ? await im.apps.ensureDemoApp() : undefined;

  const channel = createChannelModule({
    repositories: repositories.channel,
    uow,
    clock,
    accounts,
    jobs,
    outbound,
    secrets,
    alerts: operations.events,
    dataDir: config.dataDir,
    publicUrl: config.publicUrl,
    media: config.media,
    metrics,
    pushConcurrency: config.pushConcurrency,
    searchIndexBatch: config.searchIndexBatch,
    settings: coordination.settings,
    // Live events reach agents on every instance when instances coordinate through Redis.
    ...(coordination.kind === 'redis' ? { events: pubsubEventBus(coordination.pubsub) } : {}),
  });
  accounts.onAgentStatus(async (tenantId, agentId, status) => {
    channel.events.publish({ type: 'agent_status', tenantId, conversationId: null, queueId: null, agentId, status });
    if (status === 'online') await channel.dispatcher.agentAvailable(tenantId, agentId);
  });
  // Deleting an agent puts their open conversations back in their queues, in the same transaction.
  accounts.admin.onAgentRemoval((tx, tenantId, agentId) => channel.conversations.requeueAgent(tx, tenantId, agentId));
  return { config, clock, storage, metrics, redis, uow, accounts, passwords, bootstrap, jobs, outbound, coordination, membership, channel, im, imDemoApp, callbacks, operations, presence };
}

/** Pub/sub, run-once tasks and settings versions: on Redis when it is configured, else in this process. */
function buildCoordination({ config, redis, log }: Foundation): Coordination {
  const onSingletonError = (name: string, error: unknown) => log.error({ err: error, task: name }, 'periodic task failed');
  const onSettingsError = (error: unknown) => log.warn({ err: error }, 'settings versions: Redis unreachable, cached settings are read afresh');
  return redis ? redisCoordination(redis, onSingletonError, config.redisPrefix, onSettingsError) : inProcessCoordination(onSingletonError);
}

/** The post-send and pre-send callbacks module over the shared unit of work, job queue and sender. */
function buildCallbacks(
  base: Foundation,
  parts: {
    uow: Modules['uow'];
    repositories: ReturnType<typeof storageRepositories>;
    coordination: Modules['coordination'];
    jobs: Modules['jobs'];
    outbound: Modules['outbound'];
    alerts: Modules['operations']['events'];
  },
): Modules['callbacks'] {
  const { config, clock, redis, metrics, log } = base;
  const { uow, repositories, coordination, jobs, outbound, alerts } = parts;
  return createCallbacks({
    uow,
    repo: repositories.callbacks,
    presendRepo: repositories.presend,
    deliveryLogRepo: repositories.deliveryLog,
    config: config.callbacks,
    clock,
    jobs,
    outbound,
    metrics,
    logger: log,
    settings: coordination.settings,
    alerts,
    ...(config.workers ? { singletons: coordination.singletons } : {}),
    // Ban windows, counts and ends shared by every instance.
    ...(redis ? { redis: { client: redis, prefix: config.redisPrefix } } : {}),
  });
}

/**
 * The job queue and this instance's membership of the cluster: the instance id names this process
 * in the cluster view and owns the leases it claims.
 */
function buildJobQueue({ config, clock, storage, log }: Foundation, coordination: Coordination, metrics: Registry) {
  const instanceId = `${os.hostname()}-${process.pid}-${randomHex(3)}`;
  const jobs = new SqlJobQueue({
    db: storage.db,
    capabilities: storage.capabilities,
    clock,
    logger: log,
    workerId: instanceId,
    ...(coordination.kind === 'redis' ? { pubsub: coordination.pubsub } : {}),
  });
  const membership = new Membership({
    id: instanceId,
    repo: kyselyInstancesRepository(storage.db),
    clock,
    elapsed: { now: () => performance.now() },
    inFlight: () => jobs.inFlight(),
    wake: (queue) => jobs.notify(queue),
    metrics: promClusterMetrics(metrics),
    logger: log,
    ...config.cluster,
  });
  return { jobs, membership };
}

/** Accounts, the password pool and back-off, and the bootstrap admin (and demo tenant). */
async function buildAccounts({ config, clock, storage }: Foundation, uow: UnitOfWork<StorageTransaction>) {
  const accountsRepo = accountsRepository(storage);
  // One pool bounds every password hash of the process; one back-off covers console logins and
  // IM password grants, so an IP guessing at both is counted once.
  const passwords = new Passwords(
    new PasswordPool({ concurrency: config.passwordHashConcurrency, queue: config.passwordHashQueue }),
    new LoginBackoff(clock),
  );
  const accounts = new AccountsService(accountsRepo, uow, clock, config.tokenTtlSeconds, passwords);
  const bootstrap = await bootstrapAccounts(accountsRepo, clock, {
    adminUsername: config.adminUsername,
    adminPassword: config.adminPassword,
    seedDemo: config.seedDemo,
  });
  return { accounts, passwords, bootstrap };
}

/** The sender for customer-controlled URLs: on a worker thread, or in process. */
function outboundSender(config: Config, log: FastifyBaseLogger): OutboundSender {
  const options = {
    allowPrivate: config.allowPrivateCallbacks,
    connectionsPerOrigin: config.outboundConnectionsPerOrigin,
    connectionsPerKey: config.outboundConnectionsPerKey,
  };
  return config.outboundThread
    ? new ThreadedOutboundSender(options, (error) => log.error({ err: error }, 'outbound worker thread failed; the next request starts a new one'))
    : new UndiciOutboundSender(options);
}

/** Sockets on another instance are reached through Redis; one instance keeps them in process. */
function redisPresence({ config, clock, redis, log }: Foundation, coordination: Coordination): RedisPresence | undefined {
  if (!redis) return undefined;
  return new RedisPresence({
    redis,
    pubsub: coordination.pubsub,
    clock,
    prefix: config.redisPrefix,
    onError: (error) => log.warn({ err: error }, 'IM presence: Redis unreachable'),
  });
}

/**
 * The callbacks module assembled over the repository the composition root passes in: rule cache, ban store,
 * delivery engine, post-send hook, service, metrics and the periodic ban/retention tick.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CallbacksConfig } from '../../config/index.js';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { Singletons } from '../coordination/ports.js';
import type { SettingsVersions } from '../coordination/settings-versions.js';
import type { JobQueue } from '../jobs/ports.js';
import type { OperatorAlerts } from '../operations/raise.js';
import type { OutboundSender } from '../outbound/ports.js';
import type { Redis } from 'ioredis';
import { BanRegistry, type BanStore } from './ban-registry.js';
import { RedisBanStore } from './redis-bans.js';
import { CallbackDelivery, ruleQueue } from './delivery.js';
import { RuleDirectory } from './directory.js';
import { CallbackEvents } from './events.js';
import { CallbacksOperationHook, CallbacksPostSendHook } from './hook.js';
import { createPresend, type PresendModule } from './presend/index.js';
import type { PresendRulesRepository } from './presend/ports.js';
import { observeCallbacks } from './metrics.js';
import { OperatorNotices } from './operator-notices.js';
import type { CallbacksRepository, CallbacksTransaction } from './ports.js';
import { DeliveryLog } from './delivery-log.js';
import type { DeliveryLogRepository } from './delivery-log-ports.js';
import { CallbacksService } from './service.js';

/** Real-time period of the ban-expiry check. */
const TICK_MS = 5_000;
/** Period of the exception-store retention sweep, run by one instance at a time. */
const RETENTION_MS = 60_000;

export interface CallbacksModule {
  repo: CallbacksRepository;
  service: CallbacksService;
  hook: CallbacksPostSendHook;
  /** The IM module's `OperationHook`: the event catalogue (contacts, logins, recalls, read receipts, group and chat-room operations). */
  operations: CallbacksOperationHook;
  delivery: CallbackDelivery;
  bans: BanStore;
  events: CallbackEvents;
  /** The pre-send callback: the IM module's pre-send check and the service of its rules. */
  presend: PresendModule;
  /** The durable delivery log: every attempt, searchable; the console's live tail reads it. */
  recent: DeliveryLog;
  /** Registers workers (call before the job queue starts) and resumes rules with pending jobs. */
  start(): Promise<void>;
  /** Ends elapsed bans, raises `store.expiring` for keys a day from expiry and deletes expired stored records. Runs periodically; tests call it after moving the clock. */
  tick(options?: { retention?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface CallbacksDeps {
  /** Transactions of the exception store's re-sends (the composition's unit of work). */
  uow: UnitOfWork<CallbacksTransaction>;
  /** The storage port (the composition root builds it; rule secrets are sealed at rest inside it). */
  repo: CallbacksRepository;
  /** The pre-send rules' storage port. */
  presendRepo: PresendRulesRepository;
  /** The delivery log's storage port. */
  deliveryLogRepo: DeliveryLogRepository;
  config: CallbacksConfig;
  clock: Clock;
  jobs: JobQueue;
  outbound: OutboundSender;
  metrics: Registry;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Read-your-writes of rules and switches across instances; without it, this process only. */
  settings?: SettingsVersions;
  /** Runs the periodic retention sweep on one instance; without it there is no periodic sweep (workers off). */
  singletons?: Singletons;
  /** Ban state shared by all instances; without it ban state lives in this process. */
  redis?: { client: Redis; prefix: string };
  /** Operator events (contract 6.7): bans, their ends and keys a day from expiry are raised here. */
  alerts?: OperatorAlerts<CallbacksTransaction>;
}

export function createCallbacks(deps: CallbacksDeps): CallbacksModule {
  const { uow, repo, config, clock, jobs, outbound, logger } = deps;
  const events = new CallbackEvents();
  observeCallbacks(events, deps.metrics, logger);
  const recent = new DeliveryLog(deps.deliveryLogRepo, clock, (error, rows) => logger.error({ err: error, rows }, 'callback delivery log: a batch could not be written'));
  recent.observe(events);
  const directory = new RuleDirectory(repo, clock, config.ruleCacheMs, deps.settings);
  const onBanError = (error: unknown) => logger.error({ err: error }, 'callback rule ban state: storage failed');
  const bans = createBanStore(deps, events, directory, onBanError);
  const delivery = new CallbackDelivery(
    { uow, repo, directory, bans, jobs, outbound, clock, events },
    {
      attemptTimeoutMs: config.attemptTimeoutMs,
      ruleConcurrency: config.ruleConcurrency,
      dateKeyZone: config.dateKeyZone,
      resendPerSecond: config.resendPerSecond,
    },
  );
  const hook = new CallbacksPostSendHook(directory, jobs, delivery);
  const operations = new CallbacksOperationHook(directory, jobs, delivery);
  const presend = createPresend({ repo: deps.presendRepo, clock, outbound, ruleCacheMs: config.ruleCacheMs, metrics: deps.metrics, ...(deps.settings ? { settings: deps.settings } : {}) });
  const service = new CallbacksService({ uow, repo, directory, bans, jobs, outbound, clock, retentionMs: config.storeRetentionMs, dateKeyZone: config.dateKeyZone, attemptTimeoutMs: config.attemptTimeoutMs });

  const redriving = redriveOnUnban(events, service, logger);

  const notices = deps.alerts && new OperatorNotices(deps.alerts, repo, clock, config.storeRetentionMs).observe(events);

  let timer: NodeJS.Timeout | undefined;
  const sweep = async () => {
    await notices?.noticeExpiring();
    const deleted = await service.sweepExpired();
    if (deleted > 0) logger.info({ deleted }, 'expired callback records deleted from the exception store');
    const attempts = await recent.sweep(config.storeRetentionMs);
    if (attempts > 0) logger.info({ deleted: attempts }, 'expired attempts deleted from the callback delivery log');
  };
  const tick = async (options: { retention?: boolean } = {}) => {
    await bans.tick();
    await Promise.all(redriving);
    if (options.retention ?? true) await sweep();
  };

  return {
    repo,
    service,
    hook,
    operations,
    presend,
    delivery,
    bans,
    events,
    recent,
    async start() {
      delivery.install();
      await resumeRules(repo, jobs, delivery);
      // Ban expiry and retention run on one instance at a time (Redis lock with several instances).
      if (deps.singletons) {
        deps.singletons.every('callbacks.ban-expiry', TICK_MS, () => bans.tick());
        deps.singletons.every('callbacks.retention', RETENTION_MS, sweep);
      } else {
        timer = setInterval(() => void bans.tick().catch(onBanError), TICK_MS);
        timer.unref();
      }
    },
    tick,
    async stop() {
      if (timer) clearInterval(timer);
      delivery.stop();
      await bans.flush();
      await recent.flush();
    },
  };
}

/** Re-drive after a ban, for rules that opted in; a ban's end is noticed at most one tick late. The runs in progress. */
function redriveOnUnban(events: CallbackEvents, service: CallbacksService, logger: CallbacksDeps['logger']): Set<Promise<unknown>> {
  const redriving = new Set<Promise<unknown>>();
  events.on('rule.unbanned', (e) => {
    const run = service
      .redrive(e, TICK_MS)
      .catch((error: unknown) => logger.error({ err: error, rule: e.rule }, 'callback rule re-drive: could not start'))
      .finally(() => redriving.delete(run));
    redriving.add(run);
  });
  return redriving;
}

/** Ban state in Redis (shared by all instances) when it is configured, else in this process. */
function createBanStore(deps: CallbacksDeps, events: CallbackEvents, directory: RuleDirectory, onError: (error: unknown) => void): BanStore {
  const { repo, clock } = deps;
  if (!deps.redis) return new BanRegistry(repo, clock, events, onError);
  return new RedisBanStore({
    redis: deps.redis.client,
    prefix: deps.redis.prefix,
    repo,
    clock,
    events,
    lookup: async (ruleId) => directory.rule(ruleId),
    onError,
  });
}

/** Rules with jobs left from a previous run (crash, restart) get their workers back. */
async function resumeRules(repo: CallbacksRepository, jobs: JobQueue, delivery: CallbackDelivery): Promise<void> {
  for (const id of await repo.allRuleIds()) {
    if ((await jobs.depth(ruleQueue(id))) > 0) delivery.ensureWorker(id);
  }
}

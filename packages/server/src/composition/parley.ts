/**
 * What buildApp takes (AppDeps) and what it hangs on the Fastify instance (`app.parley`), apart
 * from app.ts so the composition steps can name them without importing the root.
 */
import type { AppCreated } from '@parley/protocol';
import type { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config/index.js';
import type { Clock } from '../kernel/clock.js';
import type { BootstrapResult } from '../modules/accounts/bootstrap.js';
import type { Passwords } from '../modules/accounts/password.js';
import type { AccountsService } from '../modules/accounts/service.js';
import type { CallbacksModule } from '../modules/callbacks/index.js';
import type { ChannelModule } from '../modules/channel/index.js';
import type { Membership } from '../modules/cluster/membership.js';
import type { Coordination } from '../modules/coordination/ports.js';
import type { ImModule } from '../modules/im/index.js';
import type { PostSendHook } from '../modules/im/post-send.js';
import type { SocketLimits } from '../modules/im/socket-limits.js';
import type { JobQueue } from '../modules/jobs/ports.js';
import type { OperationsModule } from '../modules/operations/index.js';
import type { OutboundSender } from '../modules/outbound/ports.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { Storage } from '../storage/index.js';
import type { StorageTransaction } from '../storage/repositories/transaction.js';

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
  /** Transactions over every module's writes and the job queue (storage/unit-of-work.ts). */
  uow: UnitOfWork<StorageTransaction>;
  /** Durable hand-off for work after a request; workers start when the app is ready. */
  jobs: JobQueue & { notifyAll(): void };
  /** The shared sender for customer-controlled URLs. */
  outbound: OutboundSender;
  /** Pub/sub and run-once tasks across instances (in-process, or Redis when REDIS_URL is set). */
  coordination: Coordination;
  /** This instance's heartbeat, the take-over of dead instances' jobs, and the cluster view. */
  membership: Membership;
  channel: ChannelModule;
  im: ImModule;
  /** Credentials of the demo IM app, set only on the boot that created it. */
  imDemoApp: AppCreated | undefined;
  /** Post-send callbacks: rules, delivery engine, exception store. */
  callbacks: CallbacksModule;
  /** Operator events (contract 6.7): operations webhooks, the events raised for them and their sender. */
  operations: OperationsModule<StorageTransaction>;
}

declare module 'fastify' {
  interface FastifyInstance {
    parley: Parley;
  }
}

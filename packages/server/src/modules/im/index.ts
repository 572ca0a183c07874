/**
 * The IM module assembled: services over the repositories app.ts passes in, presence and the fan-out handler. app.ts
 * builds it once and exposes it as `app.parley.im`.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import type { Database } from '../../storage/schema.js';
import type { Passwords } from '../accounts/password.js';
import type { JobQueue } from '../jobs/ports.js';
import { ImAppsService } from './apps.js';
import { ImDelivery } from './delivery.js';
import { ImGroupsService } from './groups.js';
import { FANOUT_QUEUE, MessageCommitter, type FanoutPayload } from './commit.js';
import { ImMessagesService } from './messages.js';
import { ModerationService } from './moderation.js';
import { IdGenerator } from './msg-id.js';
import { noPostSend, type PostSendHook } from './post-send.js';
import { InProcessPresence, type Presence } from './presence.js';
import { SocketLimits, type SocketLimitsOptions } from './socket-limits.js';
import type { ImAppsRepository, ImGroupsRepository, ImMessagesRepository, ImUsersRepository } from './ports.js';
import { ImUsersService } from './users.js';

export interface ImModule {
  apps: ImAppsService;
  users: ImUsersService;
  groups: ImGroupsService;
  moderation: ModerationService;
  messages: ImMessagesService;
  delivery: ImDelivery;
  presence: Presence;
  /** Outbound buffer bound and socket caps, shared by every socket protocol. */
  sockets: SocketLimits;
  /** The hook called by every fan-out; replaceable until the first message (callbacks install theirs). */
  postSend: PostSendHook;
}

/** The IM storage ports; app.ts builds the concrete repositories. */
export interface ImRepositories {
  apps: ImAppsRepository;
  users: ImUsersRepository;
  groups: ImGroupsRepository;
  messages: ImMessagesRepository;
}

export interface ImModuleOptions {
  /** For the message commit and the fan-out, which write several tables in one transaction. */
  db: Kysely<Database>;
  repositories: ImRepositories;
  clock: Clock;
  jobs: JobQueue;
  tokenTtlSeconds: number;
  postSend?: PostSendHook;
  presence?: Presence;
  /** The socket bounds, or the options to make them with. */
  sockets: SocketLimits | SocketLimitsOptions;
  /** Message commits running at once (1 for a single-writer engine). */
  commitConcurrency?: number;
  /** Fan-out jobs run at once in this process. */
  fanoutConcurrency?: number;
  /** Password hashing and checks (bounded pool, back-off), shared with the accounts module. */
  passwords: Passwords;
}

export function createImModule(options: ImModuleOptions): ImModule {
  const { db, clock, jobs } = options;
  const { apps: appsRepo, users: usersRepo, groups: groupsRepo, messages: messagesRepo } = options.repositories;
  const ids = new IdGenerator(clock);
  const presence = options.presence ?? new InProcessPresence();

  const apps = new ImAppsService(appsRepo, usersRepo, clock, options.tokenTtlSeconds, options.passwords);
  const users = new ImUsersService(usersRepo, clock, options.passwords);
  const groups = new ImGroupsService(groupsRepo, users, ids, clock);
  const moderation = new ModerationService(appsRepo, clock);
  const committer = new MessageCommitter(db, messagesRepo, jobs, ids, options.commitConcurrency ?? 1);
  const messages = new ImMessagesService(committer, messagesRepo, users, groups, moderation, ids, clock);

  const module: ImModule = {
    apps,
    users,
    groups,
    moderation,
    messages,
    presence,
    sockets: options.sockets instanceof SocketLimits ? options.sockets : new SocketLimits(options.sockets),
    postSend: options.postSend ?? noPostSend,
    delivery: undefined as unknown as ImDelivery,
  };
  module.delivery = new ImDelivery(db, messagesRepo, groupsRepo, presence, jobs, () => module.postSend, clock, (appId) => apps.appkeyOf(appId));
  committer.onCommitting = module.delivery.expectLive;
  committer.onAborted = module.delivery.releaseLive;
  messages.afterCommit = module.delivery.deliverLive;
  presence.onDrainRequest((appId, username) => void module.delivery.drain(appId, username));
  jobs.work<FanoutPayload>(FANOUT_QUEUE, module.delivery.handle, { concurrency: options.fanoutConcurrency ?? 8, leaseMs: 30_000 });
  return module;
}

/**
 * The IM module assembled: services over the repositories app.ts passes in, presence, the live
 * push and the fan-out handler. app.ts builds it once and exposes it as `app.parley.im`.
 *
 * Built in dependency order, each part getting what it calls in its constructor: the live
 * deliveries (who gets a message live, recorded before its commit, pushed after), the committer
 * and the messages service, the drains, the fan-out handler and the offline store.
 */
import { randomUUID } from 'node:crypto';
import type { ImUserView } from '@parley/protocol';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.js';
import type { MediaLimits } from '../media/store.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { Passwords } from '../accounts/password.js';
import type { PubSub } from '../coordination/ports.js';
import type { SettingsVersions } from '../coordination/settings-versions.js';
import type { JobQueue } from '../jobs/ports.js';
import { ImAppsService } from './apps.js';
import { FANOUT_QUEUE, MessageCommitter, type FanoutPayload } from './commit.js';
import { Drains } from './drains.js';
import { Fanout } from './fanout.js';
import { ImFiles, type ImFilesRepository } from './files.js';
import { ImSharedFiles } from './shared-files.js';
import { ImConversations, type ImConversationsRepository } from './conversations.js';
import { GroupEvents } from './group-events.js';
import { GroupInvitesService } from './group-invites.js';
import { GroupMembershipService } from './group-membership.js';
import { GroupMutesService } from './group-mutes.js';
import { GroupRolesService, type ImGroupRolesRepository } from './group-roles.js';
import { groupNotifier } from './group-notices.js';
import { ImGroupsService } from './groups.js';
import { ImHistory, type ImHistoryRepository } from './history.js';
import { HistoryRetention } from './history-retention.js';
import { LiveDeliveries } from './live-deliveries.js';
import { ImMessagesService } from './messages.js';
import { EditsService } from './edits.js';
import { PendingEvents } from './pending-events.js';
import { ReceiptsService } from './receipts.js';
import { RecallsService } from './recalls.js';
import { Devices } from './devices.js';
import { noImMetrics, type ImMetrics } from './metrics.js';
import { ModerationService } from './moderation.js';
import { IdGenerator } from './msg-id.js';
import { ContactsService } from './contacts.js';
import { OfflineStore } from './offline-store.js';
import { AllowedOriginsService } from './origins.js';
import { noOperationHook, OperationEvents, type OperationHook } from './operation-events.js';
import { noPostSend, type PostSendHook } from './post-send.js';
import type { PreSendHook } from './pre-send.js';
import { InProcessPresence, type Presence } from './presence.js';
import { SocketLimits, type SocketLimitsOptions } from './socket-limits.js';
import type { ImApp, ImAppsRepository, ImGroupsRepository, ImMessagesRepository, ImTransaction, ImUsersRepository, MessageRef } from './ports.js';
import type { ImAttributesRepository, ImContactsRepository, ImOriginsRepository } from './sdk-ports.js';
import { UserAttributesService } from './user-attributes.js';
import { UserStatuses } from './user-status.js';
import { ImUsersService } from './users.js';

export interface ImModule {
  apps: ImAppsService;
  users: ImUsersService;
  /** Groups and chat rooms; `groups.events` announces every operation after its write. */
  groups: ImGroupsService;
  /** Groups from their users' side: join, leave, invite, change of owner, pages. */
  membership: GroupMembershipService;
  /** Invitations held for the invitee's confirmation (`invite_need_confirm`) and their answers. */
  invites: GroupInvitesService;
  /** A group's admins, block and allow lists (group-roles.ts). */
  groupRoles: GroupRolesService;
  /** A group's mutes and announcement (group-mutes.ts). */
  groupMutes: GroupMutesService;
  moderation: ModerationService;
  /** The browser origins allowed to call the app's IM REST routes (CORS). */
  origins: AllowedOriginsService;
  /** User attributes (nickname, avatar, ...), set by the user or the app. */
  attributes: UserAttributesService;
  /** Contacts and block lists (a block refuses one-to-one messages on every protocol). */
  contacts: ContactsService;
  messages: ImMessagesService;
  /** Read, delivery and conversation receipts, forwarded live; group readers. */
  receipts: ReceiptsService;
  /** Recall of a message: removed, and its receivers and the sender's other devices told. */
  recalls: RecallsService;
  /** The devices users log in with; their own messages, recalls and edits kept for their devices offline. */
  devices: Devices;
  /** Edits of sent messages: stored, and receivers and the sender's other devices told. */
  edits: EditsService;
  /** Logins and logouts of sockets (`userStatus` callbacks): each socket route opens a session when it admits a socket. */
  statuses: UserStatuses;
  /** Receipts, recalls, edits, contact and group events kept for users who were offline; each socket route hands them over once ready. */
  events: PendingEvents;
  /** The offline count and status (read after the user's pending fan-out); messages given back by a socket. */
  offline: OfflineStore;
  /** The `im.fanout` job handler. */
  fanout: Fanout;
  /** The one generator of message, group and event ids: gateways take the ids of the metas they make from it too. */
  ids: IdGenerator;
  /** Pushes of a user's stored messages to their sockets (the socket route drains on connect). */
  drains: Drains;
  presence: Presence;
  /** Chat files in the one media store. */
  files: ImFiles;
  /** Groups' and rooms' shared files (chat files of a group). */
  sharedFiles: ImSharedFiles;
  /** History roaming; `history.remove` takes messages out of history and the offline store (recall). */
  history: ImHistory;
  /** Deletes messages older than PARLEY_IM_HISTORY_DAYS (periodic, one instance; tests call it after moving the clock). */
  retention: HistoryRetention;
  /** The server conversation list: last message, unread count, read marks, deletes. */
  conversations: ImConversations;
  /** Outbound buffer bound and socket caps, shared by every socket protocol. */
  sockets: SocketLimits;
  /**
   * Deletes a user: this instance forgets their tokens at once and tells the others to (over
   * `pubsub`, so within milliseconds rather than their caches' 10 s), and their sockets close.
   */
  removeUser(app: ImApp, username: string): Promise<ImUserView>;
}

/** The IM storage ports; app.ts builds the concrete repositories. */
export interface ImRepositories {
  apps: ImAppsRepository;
  users: ImUsersRepository;
  groups: ImGroupsRepository;
  groupRoles: ImGroupRolesRepository;
  messages: ImMessagesRepository;
  origins: ImOriginsRepository;
  files: ImFilesRepository;
  history: ImHistoryRepository;
  conversations: ImConversationsRepository;
  attributes: ImAttributesRepository;
  contacts: ImContactsRepository;
}

export interface ImModuleOptions {
  /** The transactions of the message commit, the fan-out and the offline store. */
  uow: UnitOfWork<ImTransaction>;
  repositories: ImRepositories;
  /** This instance's id, recorded with the messages it pushes live (default: a random one). */
  instanceId?: string;
  /**
   * Whether another instance still lives (so pushes what it recorded as pushed live); default: no
   * other instance ever does (one process).
   */
  instanceAlive?: (instanceId: string) => Promise<boolean>;
  clock: Clock;
  jobs: JobQueue;
  tokenTtlSeconds: number;
  /** How long after sending a user may recall a message (default 120). */
  recallSeconds?: number;
  /** Called by every fan-out in its transaction (the callbacks module's hook); default: none. */
  postSend?: PostSendHook;
  /** Called by contacts, logins and logouts, recalls, read receipts and group and chat-room operations (the callbacks module's event catalogue); default: none. */
  operations?: OperationHook;
  /** Reviews every send before it is written (the callbacks module's pre-send check); default: none. */
  preSend?: PreSendHook;
  presence?: Presence;
  /** Read-your-writes of cached sensitive words across instances; without it, this process only. */
  settings?: SettingsVersions;
  /** The socket bounds, or the options to make them with. */
  sockets: SocketLimits | SocketLimitsOptions;
  /** Fan-out jobs run at once in this process. */
  fanoutConcurrency?: number;
  /** Password hashing and checks (bounded pool, back-off), shared with the accounts module. */
  passwords: Passwords;
  /** Where messages, offline rows, fan-out lag and sockets are counted; default: nowhere. */
  metrics?: ImMetrics;
  /** Where a failed live push is reported (the fan-out job delivers its messages); default: nowhere. */
  logger?: Pick<Logger, 'error'>;
  /** The media store's directory and limits, for chat files. */
  media: { dir: string; limits: MediaLimits };
  /** How far back history roaming reaches, ms (PARLEY_IM_HISTORY_DAYS). */
  historyMs: number;
  /** Instances tell each other of deleted users here; without it, this process only. */
  pubsub?: PubSub;
}

/** The topic on which a deleted user is announced: `{"appId","username"}`. */
const USER_REMOVED_TOPIC = 'im.user-removed';

export function createImModule(options: ImModuleOptions): ImModule {
  const { uow, clock, jobs } = options;
  const { apps: appsRepo, users: usersRepo, groups: groupsRepo, messages: messagesRepo } = options.repositories;
  const ids = new IdGenerator(clock);
  const presence = options.presence ?? new InProcessPresence();
  const metrics = options.metrics ?? noImMetrics;
  metrics.watchSockets(() => presence.size());
  const instanceId = options.instanceId ?? randomUUID();
  const instanceAlive = options.instanceAlive ?? (async () => false);

  const apps = new ImAppsService(appsRepo, usersRepo, clock, options.tokenTtlSeconds, options.passwords);
  const users = new ImUsersService(usersRepo, clock, options.passwords);
  const events = new PendingEvents(messagesRepo, uow, presence, clock, () => ids.next(), (error) => options.logger?.error({ err: error }, 'IM: an event for an offline user could not be kept'));
  const ops = new OperationEvents(options.operations ?? noOperationHook, uow);
  const { groups, invites, membership, groupRoles, groupMutes } = groupServices(options, users, ids, events, ops);
  const moderation = new ModerationService(appsRepo, clock, options.settings);
  const origins = new AllowedOriginsService(options.repositories.origins, clock, options.settings);
  const attributes = new UserAttributesService(options.repositories.attributes, users, clock);
  const contacts = new ContactsService(options.repositories.contacts, users, clock, ops, ids, (appId, usernames, frame) => events.deliver(appId, usernames, frame), options.settings);
  const keep = (missed: Array<MessageRef & { usernames: string[] }>) => offline.keep(missed);
  const devices = new Devices(uow, messagesRepo, presence, events, clock, (error) => options.logger?.error({ err: error }, 'IM: a device or a change for it could not be recorded'));
  const pushFailed = (error: unknown) => options.logger?.error({ err: error }, 'IM live push failed; its receivers get the message stored');
  const live = new LiveDeliveries(presence, groupsRepo, instanceId, keep, metrics, pushFailed, devices.hasOther);
  const committer = new MessageCommitter(uow, ids);
  const messages = new ImMessagesService(committer, users, groups, moderation, ids, clock, live, metrics, options.preSend, contacts);
  const receipts = new ReceiptsService(messagesRepo, groups, events, ops, ids, clock);
  const recalls = new RecallsService(messagesRepo, groupsRepo, presence, events, devices, ops, ids, clock, options.recallSeconds ?? 120);
  const statuses = new UserStatuses(ops, clock, (error) => options.logger?.error({ err: error }, 'IM: the callbacks of a login or logout could not be written'));
  const edits = new EditsService(messagesRepo, groupsRepo, moderation, uow, presence, events, devices, ids, clock, options.preSend);
  const drains = new Drains(messagesRepo, presence, clock, metrics, (error) => options.logger?.error({ err: error }, 'IM: a drain of stored messages failed; they stay stored'));
  const fanout = new Fanout({
    uow,
    messages: messagesRepo,
    groups: groupsRepo,
    presence,
    postSend: options.postSend ?? noPostSend,
    clock,
    appkeyOf: (appId) => apps.appkeyOf(appId),
    pusherAlive: async (id) => id === instanceId || (await instanceAlive(id)),
    keep,
    drains,
    metrics,
  });
  const offline = new OfflineStore(messagesRepo, fanout, uow, clock, drains, presence);
  presence.onDrainRequest((appId, username) => void drains.drain(appId, username));
  // A socket that closed before a frame pushed to it from another instance arrived.
  presence.onUnreached((appId, usernames, frame) => {
    if (frame.op === 'message' && !frame.online_only && frame.device === undefined) void keep([{ appId, msgId: frame.msg_id, usernames }]).catch(() => undefined);
  });
  jobs.work<FanoutPayload>(FANOUT_QUEUE, fanout.handle, { concurrency: options.fanoutConcurrency ?? 8, leaseMs: 30_000 });

  const files = new ImFiles(options.repositories.files, options.media.dir, clock, options.media.limits);
  const sharedFiles = new ImSharedFiles(files, options.repositories.files, groups);
  const conversations = new ImConversations(options.repositories.conversations, clock, options.historyMs);
  const history = new ImHistory(options.repositories.history, groups, clock, options.historyMs, (appId, username, ref) => conversations.clearedUpTo(appId, username, ref));
  const sockets = options.sockets instanceof SocketLimits ? options.sockets : new SocketLimits(options.sockets);

  const forgetUser = (appId: string, username: string) => {
    apps.forgetUser(appId, username);
    users.forget(appId, username);
  };
  const pubsub = options.pubsub;
  pubsub
    ?.subscribe(USER_REMOVED_TOPIC, (payload) => {
      const { appId, username } = parseUserRemoved(payload);
      if (appId !== undefined && username !== undefined) forgetUser(appId, username);
    })
    .catch((error: unknown) => options.logger?.error({ err: error }, 'IM: could not subscribe to deleted-user announcements'));
  const removeUser = async (app: ImApp, username: string): Promise<ImUserView> => {
    const removed = await users.remove(app, username);
    apps.forgetUser(app.id, removed.username);
    pubsub?.publish(USER_REMOVED_TOPIC, JSON.stringify({ appId: app.id, username: removed.username }));
    presence.disconnect(app.id, removed.username, 'user deleted');
    return removed;
  };

  const retention = new HistoryRetention(appsRepo, uow, clock, options.historyMs);
  return { apps, users, groups, membership, invites, groupRoles, groupMutes, moderation, origins, attributes, contacts, messages, receipts, recalls, devices, edits, statuses, events, offline, fanout, ids, drains, presence, files, sharedFiles, history, retention, conversations, sockets, removeUser };
}

/**
 * The groups service, whose operations are written with their callback jobs (`ops`) and then told
 * to the members' sockets (the notices about a user kept for them while offline, as contact
 * events); and the users' side of groups over it.
 */
function groupServices(options: ImModuleOptions, users: ImUsersService, ids: IdGenerator, pending: PendingEvents, ops: OperationEvents) {
  const repo = options.repositories.groups;
  const events = new GroupEvents((error) => options.logger?.error({ err: error }, 'IM: a subscriber of a group operation failed'));
  events.subscribe(groupNotifier(repo, (appId, usernames, frame, keep) => pending.deliver(appId, usernames, frame, keep)));
  const groups = new ImGroupsService(repo, users, ids, options.clock, ops, events);
  const invites = new GroupInvitesService(repo, groups, options.clock);
  const groupRoles = new GroupRolesService(options.repositories.groupRoles, repo, groups, users, options.clock);
  groups.roles = groupRoles.checks();
  const groupMutes = new GroupMutesService(options.repositories.groupRoles, repo, groups, groupRoles, options.clock);
  return { groups, invites, membership: new GroupMembershipService(repo, groups, users, options.clock, invites), groupRoles, groupMutes };
}

function parseUserRemoved(payload: string): { appId?: string; username?: string } {
  try {
    const value = JSON.parse(payload) as { appId?: unknown; username?: unknown };
    return typeof value.appId === 'string' && typeof value.username === 'string' ? { appId: value.appId, username: value.username } : {};
  } catch {
    return {};
  }
}

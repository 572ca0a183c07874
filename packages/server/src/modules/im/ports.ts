/**
 * Domain types and the storage port of the IM module. The Kysely implementation lives in
 * src/storage/repositories/im*.ts and works on both engines.
 */
import type { TransactionJobs } from '../jobs/ports.js';
import type { ListKey } from './paging.js';
import type { MessageBody, MessageChatType, MessageSource } from './post-send.js';
import type { SecretOverlap } from '../../kernel/secret-overlap.js';
import type { ImContactWrites, ImGroupInvite } from './sdk-ports.js';
import type { ImFileWrites } from './files.js';

export interface ImApp {
  id: string;
  orgName: string;
  appName: string;
  /** `org#app` */
  appkey: string;
  clientId: string;
  clientSecretHash: string;
  /** The hash of the client secret before the last rotation while it may still grant tokens (contract 6.6). */
  previousSecretHash?: SecretOverlap<string> | null;
  createdAt: number;
}

export interface ImUser {
  appId: string;
  username: string;
  uuid: string;
  passwordHash: string;
  nickname: string | null;
  createdAt: number;
  modifiedAt: number;
}

export type GroupKind = 'group' | 'chatroom';

export interface ImGroup {
  id: string;
  appId: string;
  kind: GroupKind;
  name: string;
  description: string;
  public: boolean;
  maxusers: number;
  owner: string;
  createdAt: number;
  modifiedAt: number;
  settings: GroupSettings;
}

/** How users join and invite, and the group's own texts (Easemob's create body). */
export interface GroupSettings {
  /** Joining needs the owner (`approval`, `membersonly`). */
  approval: boolean;
  /** Members may invite (the owner always may). */
  allowInvites: boolean;
  /** Stored and reported; invited users are added at once. */
  inviteNeedConfirm: boolean;
  custom: string;
  avatar: string;
}

/** A group or chat room in a list, with its member count (the owner included). */
export interface ImGroupListed extends ImGroup {
  members: number;
}

/** What a group or chat-room edit changes; absent fields stay. */
export interface GroupChanges {
  name?: string;
  description?: string;
  maxusers?: number;
  public?: boolean;
  approval?: boolean;
  allowInvites?: boolean;
  custom?: string;
  avatar?: string;
}

export interface ImMember {
  username: string;
  role: 'owner' | 'member';
}

export interface StoredMessage {
  appId: string;
  msgId: string;
  from: string;
  /** User name for `chat`; group or chat-room id otherwise. */
  to: string;
  chatType: MessageChatType;
  source: MessageSource;
  timestamp: number;
  payload: { bodies: MessageBody[]; ext: Record<string, unknown> };
  /**
   * The receivers pushed live right after the commit, decided before it, and the instance that
   * pushes them (live-deliveries.ts): the fan-out leaves them to it while it lives.
   */
  live?: LivePush;
  /**
   * For the receivers online when it is sent only (Easemob's `deliverOnlineOnly`, msync
   * `routetype` ONLINE): never stored for offline receivers, never given back by a closing socket.
   */
  onlineOnly?: boolean;
  /**
   * Multi-device: a copy is stored for the sender, in the send's transaction, when no other device
   * of theirs was online and they have one (devices.ts): the resource of the sending device, which
   * never takes it ('' for none, a REST `sync_device`). Absent: no copy.
   */
  ownCopy?: string;
}

export interface LivePush {
  /** The instance id of the sender's instance. */
  by: string;
  to: string[];
}

export interface MessageRef {
  appId: string;
  msgId: string;
}

export const refKey = (ref: MessageRef): string => `${ref.appId} ${ref.msgId}`;

export interface TokenRecord {
  appId: string;
  /** null for an app-admin token. */
  username: string | null;
  expiresAt: number;
}

export interface ImAppsRepository {
  createApp(app: Omit<ImApp, 'appkey'>): Promise<ImApp>;
  findApp(orgName: string, appName: string): Promise<ImApp | undefined>;
  findAppById(id: string): Promise<ImApp | undefined>;
  /** Every app, oldest first. */
  listApps(): Promise<ImApp[]>;
  /** Replaces the client secret's hash and the previous one's overlap (null: none); tokens already issued are kept. */
  setClientSecretHash(appId: string, hash: string, previous: SecretOverlap<string> | null): Promise<void>;
  saveToken(tokenHash: string, record: TokenRecord): Promise<void>;
  findToken(tokenHash: string): Promise<TokenRecord | undefined>;
  deleteExpiredTokens(now: number): Promise<number>;
  getWords(appId: string): Promise<string[]>;
  setWords(appId: string, words: string[], now: number): Promise<void>;
}

export interface ImUsersRepository {
  /** Inserts all or none; a taken name throws a unique violation. */
  createUsers(users: ImUser[]): Promise<void>;
  getUser(appId: string, username: string): Promise<ImUser | undefined>;
  /** Removes the user with their tokens, memberships and offline messages. */
  deleteUser(appId: string, username: string): Promise<ImUser | undefined>;
  /** Those of `usernames` that exist in the app. */
  existingUsers(appId: string, usernames: string[]): Promise<string[]>;
  /**
   * Up to `limit` users after `after` (or from the first), oldest first: by created_at, then
   * username; with `search` (already lower-case) only those whose username or nickname contains it.
   */
  listUsers(appId: string, after: ListKey | undefined, limit: number, search?: string): Promise<ImUser[]>;
  /** Sets the nickname (null clears it) and `modified`; undefined when the user does not exist. */
  setNickname(appId: string, username: string, nickname: string | null, now: number): Promise<ImUser | undefined>;
  /** Sets the password hash and `modified`; false when the user does not exist. */
  setPasswordHash(appId: string, username: string, passwordHash: string, now: number): Promise<boolean>;
}

/**
 * The writes of group and chat-room operations that are called back (`group_op_event`), in the
 * operation's transaction (`ImTransaction.groups`): its callback jobs are written beside them
 * (operation-events.ts).
 */
export interface ImGroupWrites {
  createGroup(group: ImGroup, members: string[]): Promise<void>;
  deleteGroup(appId: string, kind: GroupKind, id: string): Promise<boolean>;
  /** false when already a member. */
  addMember(group: ImGroup, username: string, now: number): Promise<boolean>;
  removeMember(groupId: string, username: string): Promise<boolean>;
  /**
   * Makes `newOwner` (a member) the owner and the old owner a member; false when `newOwner` is not
   * a member or the owner changed meanwhile (the caller then rolls the transaction back: the
   * promotion may be written).
   */
  changeOwner(group: ImGroup, newOwner: string, now: number): Promise<boolean>;
  /** Drops the request and makes the user a member; false when there was no request (nothing written). */
  acceptJoinRequest(group: ImGroup, username: string, now: number): Promise<boolean>;
  /** Records a request to join (again: its reason and time are replaced). */
  requestJoin(group: ImGroup, username: string, reason: string, now: number): Promise<void>;
  /** Drops a request to join; false when there was none. */
  dropJoinRequest(groupId: string, username: string): Promise<boolean>;
  /**
   * Applies `changes` and sets `modified`, in one statement that refuses a `maxusers` below the
   * members at the moment of the write: false then, and nothing is changed.
   */
  updateGroup(group: ImGroup, changes: GroupChanges, now: number): Promise<boolean>;
  /** Puts users on one of the group's lists (group-roles.ts); one already on it gets the new `expiresAt`. */
  putOnList(group: ImGroup, list: GroupList, usernames: readonly string[], expiresAt: number | null, now: number): Promise<void>;
  /** Takes users off a list; answers those who were on it. */
  dropFromList(groupId: string, list: GroupList, usernames: readonly string[]): Promise<string[]>;
  /** Puts the users on the block list, removes those who are members (answered) and takes them off the admins. */
  block(group: ImGroup, usernames: readonly string[], now: number): Promise<string[]>;
  /** The announcement and the mute of all members (group-mutes.ts). */
  setNotes(groupId: string, changes: { announcement?: string; allMuted?: boolean }, now: number): Promise<void>;
  /** Holds an invitation of each user from `inviter` (a second one replaces the first; group-invites.ts). */
  holdInvites(group: ImGroup, usernames: readonly string[], inviter: string, reason: string, now: number): Promise<void>;
  /** Drops the invitation; what it was, or undefined when there was none. */
  dropInvite(groupId: string, username: string): Promise<ImGroupInvite | undefined>;
  /** Drops the invitation and makes the user a member; undefined when there was none (nothing written). */
  acceptInvite(group: ImGroup, username: string, now: number): Promise<ImGroupInvite | undefined>;
}

/** The lists a group keeps of its users. */
export type GroupList = 'admin' | 'mute' | 'block' | 'allow';

export interface ImGroupsRepository {
  getGroup(appId: string, kind: GroupKind, id: string): Promise<ImGroup | undefined>;
  members(groupId: string): Promise<ImMember[]>;
  isMember(groupId: string, username: string): Promise<boolean>;
  countMembers(groupId: string): Promise<number>;
  /**
   * Up to `limit` of the app's groups or rooms after `after`, newest first: by created_at, then id,
   * descending; with `search` (already lower-case) only those whose name contains it or whose id is it.
   */
  listGroups(appId: string, kind: GroupKind, after: ListKey | undefined, limit: number, search?: string): Promise<ImGroupListed[]>;
  /** The groups (kind `group`) the user is a member of, latest joined first, from `offset`, with the user's role. */
  joinedGroups(appId: string, username: string, offset: number, limit: number): Promise<Array<ImGroupListed & { role: ImMember['role'] }>>;
  /** Up to `limit` public groups after `after`, newest first (as `listGroups`). */
  listPublicGroups(appId: string, after: ListKey | undefined, limit: number): Promise<ImGroupListed[]>;
  /** A page of members in join order (the owner first), from `offset`. */
  membersPage(groupId: string, offset: number, limit: number): Promise<ImMember[]>;
}

/** The IM writes of one transaction (the unit of work's `im`). */
export interface ImMessageWrites {
  insertMessages(messages: StoredMessage[]): Promise<void>;
  /**
   * Marks the messages fanned out (their pending record goes); returns the refs (`appId msgId`)
   * this call marked, i.e. not done before.
   */
  markFanoutDone(refs: MessageRef[]): Promise<Set<string>>;
  /** Idempotent: a (user, msg_id) pair is stored once. */
  storeOffline(rows: Array<MessageRef & { username: string }>, now: number): Promise<void>;
  /**
   * Stores each message's `ownCopy` for its sender, if the sender has a device other than the one
   * that sent it seen at `seenSince` or later (`im_devices`); nothing otherwise. Idempotent.
   */
  storeOwnCopies(messages: readonly StoredMessage[], seenSince: number): Promise<void>;
  /** A device of the user logged in: recorded as seen now; the user's devices not seen since `staleBefore` are forgotten. */
  recordDevice(appId: string, username: string, resource: string, now: number, staleBefore: number): Promise<void>;
  /** A group member read the message (group read receipts). Idempotent. */
  addGroupRead(ref: MessageRef, username: string, now: number): Promise<void>;
  /**
   * Recall: the message is gone, with its offline rows and readers. Answers the users whose
   * offline row was still undelivered and taken by none of their devices (they never had it);
   * undefined when it did not exist.
   */
  removeMessage(ref: MessageRef): Promise<string[] | undefined>;
  /**
   * Edit: replaces the message's payload if it was edited fewer than `maxEdits` times; answers the
   * edits so far, this one included, or undefined when nothing was changed (unknown, or the limit).
   */
  editMessage(ref: MessageRef, payload: StoredMessage['payload'], maxEdits: number): Promise<number | undefined>;
  /** Events kept for users no socket of whom was reached (`frame`: JSON; pending-events.ts). */
  storeEvents(rows: ReadonlyArray<{ appId: string; username: string; id: string; frame: string; sentFrom?: string }>, now: number): Promise<void>;
  /**
   * Forgets kept events a client acknowledged. With `device` (the client's resource), the user's own
   * recalls and edits among them are taken by that device, and forgotten only once every other
   * device of the user seen since `device.seenSince` (the one that made them aside) took them.
   */
  deleteEvents(appId: string, username: string, ids: readonly string[], device?: { resource: string; seenSince: number }): Promise<void>;
  /** Forgets the user's kept events stored before `cutoff` (expired). */
  deleteEventsBefore(appId: string, username: string, cutoff: number): Promise<void>;
  /**
   * History retention: deletes up to `limit` of the app's oldest messages with a msg_id below
   * `beforeMsgId`, with their offline rows, readers and pending fan-out; answers how many.
   */
  deleteMessagesBefore(appId: string, beforeMsgId: string, limit: number): Promise<number>;
}

/** What an IM transaction holds: its message writes, its contact writes and its jobs. */
export interface ImTransaction {
  readonly im: ImMessageWrites;
  readonly contacts: ImContactWrites;
  readonly groups: ImGroupWrites;
  /** A group's shared file's row, written with the group operation that shares or deletes it. */
  readonly files: ImFileWrites;
  readonly jobs: TransactionJobs;
}

export interface ImMessagesRepository {
  /** The messages that exist and are not fanned out yet. */
  pendingFanout(refs: MessageRef[]): Promise<StoredMessage[]>;
  /**
   * Up to `limit` messages not fanned out yet that the user may receive offline: sent to them
   * (`chat`) or to a group they belong to; oldest first.
   */
  pendingFanoutFor(appId: string, username: string, limit: number): Promise<MessageRef[]>;
  /**
   * Up to `limit` of the user's undelivered messages with a msg_id above `afterMsgId` ('0': from the
   * start), oldest first. Reading changes nothing: a message stays undelivered until `markDelivered`.
   * With `resource`, the user's own copies sent from that device, or taken by it, are left out.
   */
  readOffline(appId: string, username: string, afterMsgId: string, limit: number, resource?: string): Promise<StoredMessage[]>;
  /**
   * A client acknowledged these stored messages: delivered from now on. With `device` (the client's
   * resource), the user's own copies among them are taken by that device, and delivered only once
   * every other device of the user seen since `device.seenSince` (the sending one aside) took them.
   * Returns how many messages this call marked or took.
   */
  markDelivered(appId: string, username: string, msgIds: readonly string[], now: number, device?: { resource: string; seenSince: number }): Promise<number>;
  /**
   * Marks messages undelivered for the user again, storing the rows that do not exist yet (a
   * socket closed before its client took them). Idempotent.
   */
  returnOffline(appId: string, username: string, msgIds: readonly string[], now: number): Promise<void>;
  /** The user's undelivered messages received (their own copies are not counted). */
  countOffline(appId: string, username: string): Promise<number>;
  /** Whether the user has a device other than `resource` seen at `since` or later. */
  hasOtherDevice(appId: string, username: string, resource: string, since: number): Promise<boolean>;
  offlineStatus(appId: string, username: string, msgId: string): Promise<'delivered' | 'undelivered' | undefined>;
  /** One message as sent (without its live record), or undefined. */
  findMessage(appId: string, msgId: string): Promise<StoredMessage | undefined>;
  /** Up to `limit` readers of a group message after `after` (a username), by username. */
  groupReaders(appId: string, msgId: string, after: string | undefined, limit: number): Promise<Array<{ username: string; readAt: number }>>;
  countGroupReaders(appId: string, msgId: string): Promise<number>;
  /** How many events are kept for the user (expired ones included). */
  countEvents(appId: string, username: string): Promise<number>;
  /**
   * Up to `limit` of the user's kept events stored at `since` or later with an id above `afterId`
   * ('0': from the start), oldest first; with `resource`, not those made on that device or taken by it. Reading
   * changes nothing: an event stays kept until `deleteEvents`.
   */
  readEvents(appId: string, username: string, since: number, afterId: string, limit: number, resource?: string): Promise<Array<{ id: string; frame: string }>>;
}

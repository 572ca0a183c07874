/**
 * Domain types and the storage port of the IM module. The Kysely implementation lives in
 * src/storage/repositories/im*.ts and works on both engines.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { MessageBody, MessageChatType, MessageSource } from './post-send.js';

export interface ImApp {
  id: string;
  orgName: string;
  appName: string;
  /** `org#app` */
  appkey: string;
  clientId: string;
  clientSecretHash: string;
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

export type Db = Kysely<Database>;

export interface ImAppsRepository {
  createApp(app: Omit<ImApp, 'appkey'>): Promise<ImApp>;
  findApp(orgName: string, appName: string): Promise<ImApp | undefined>;
  findAppById(id: string): Promise<ImApp | undefined>;
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
}

export interface ImGroupsRepository {
  createGroup(group: ImGroup, members: string[]): Promise<void>;
  getGroup(appId: string, kind: GroupKind, id: string): Promise<ImGroup | undefined>;
  deleteGroup(appId: string, kind: GroupKind, id: string): Promise<boolean>;
  members(groupId: string): Promise<ImMember[]>;
  isMember(groupId: string, username: string): Promise<boolean>;
  /** false when already a member. */
  addMember(group: ImGroup, username: string, now: number): Promise<boolean>;
  removeMember(groupId: string, username: string): Promise<boolean>;
  countMembers(groupId: string): Promise<number>;
}

export interface ImMessagesRepository {
  /** Writes messages with `db`, the caller's transaction. */
  insertMessages(db: Db, messages: StoredMessage[]): Promise<void>;
  /** The messages that exist and are not fanned out yet. */
  pendingFanout(refs: MessageRef[]): Promise<StoredMessage[]>;
  /** Sets fanout_done; returns the refs (`appId msgId`) this call set, i.e. not done before. */
  markFanoutDone(db: Db, refs: MessageRef[]): Promise<Set<string>>;
  /** Idempotent: a (user, msg_id) pair is stored once. */
  storeOffline(db: Db, rows: Array<MessageRef & { username: string }>, now: number): Promise<void>;
  /** Marks up to `limit` undelivered messages of the user delivered and returns them, oldest first. */
  claimOffline(appId: string, username: string, now: number, limit: number): Promise<StoredMessage[]>;
  countOffline(appId: string, username: string): Promise<number>;
  offlineStatus(appId: string, username: string, msgId: string): Promise<'delivered' | 'undelivered' | undefined>;
}

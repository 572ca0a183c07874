import type { Kysely } from 'kysely';
import type { AgentStatus, Edition, Role } from '@parley/protocol';
import type { Database } from '../../storage/schema.js';

export interface Tenant {
  id: number;
  name: string;
  edition: Edition;
  defaultQueueId: number;
  vipTags: string[];
  createdAt: number;
}

export interface User {
  id: number;
  tenantId: number | null;
  username: string;
  passwordHash: string;
  nickname: string;
  avatar: string | null;
  role: Role;
  maxSessions: number;
  status: AgentStatus;
  createdAt: number;
}

export interface SkillGroup {
  id: number;
  tenantId: number;
  name: string;
}

export interface NewUser {
  tenantId: number | null;
  username: string;
  passwordHash: string;
  nickname: string;
  avatar: string | null;
  role: Role;
  maxSessions: number;
  queueIds: number[];
}

/** What may change on a user; `queueIds` replaces the user's skill groups. */
export interface UserPatch {
  nickname?: string;
  avatar?: string | null;
  role?: Role;
  maxSessions?: number;
  passwordHash?: string;
  queueIds?: number[];
}

/** What holds a skill group, read inside its deletion's transaction. */
export interface SkillGroupHolders {
  tenantDefault: boolean;
  /** Associations whose default queue it is. */
  associations: Array<{ id: number; name: string }>;
  /** Its conversations that are waiting or processing. */
  openConversations: number;
}

/** Work another module does inside a write of this one (the caller's transaction). */
export type InTransaction = (db: Kysely<Database>) => Promise<void>;

/** Storage port of the accounts module. Implementations must be atomic per method. */
export interface AccountsRepository {
  /** Creates tenant, its default skill group and its first admin in one transaction. */
  createTenant(input: { name: string; edition: Edition; admin: Omit<NewUser, 'tenantId' | 'queueIds'> }, now: number): Promise<{ tenant: Tenant; admin: User }>;
  getTenant(id: number): Promise<Tenant | undefined>;
  listTenants(): Promise<Tenant[]>;
  setVipTags(tenantId: number, tags: string[]): Promise<void>;
  countTenants(): Promise<number>;
  updateTenant(id: number, patch: { name?: string; edition?: Edition }): Promise<Tenant | undefined>;

  createUser(input: NewUser, now: number): Promise<User>;
  findUserByUsername(username: string): Promise<User | undefined>;
  getUser(id: number): Promise<User | undefined>;
  listAgents(tenantId: number): Promise<Array<User & { queueIds: number[] }>>;
  queueIdsOf(userId: number): Promise<number[]>;
  setStatus(userId: number, status: AgentStatus): Promise<void>;
  /** Sets the user's password hash and deletes every console token of the user, in one transaction. */
  resetPassword(userId: number, passwordHash: string): Promise<void>;
  hasSystemAdmin(): Promise<boolean>;
  /**
   * One transaction: changes the user, replaces its skill groups when `queueIds` is given and,
   * when `revokeTokens` is given, deletes its tokens except `keepHash`. Undefined when there was
   * no such user.
   */
  updateUser(userId: number, patch: UserPatch, revokeTokens?: { keepHash: string | undefined }): Promise<{ user: User; revokedTokens: number } | undefined>;
  /**
   * One transaction: locks the user's row, runs `inTransaction` (the channel puts the user's open
   * conversations back in their queues), deletes its tokens, its skill-group links and the user.
   * False when there was no such user.
   */
  deleteUser(userId: number, inTransaction: InTransaction): Promise<boolean>;

  createSkillGroup(tenantId: number, name: string, now: number): Promise<SkillGroup>;
  listSkillGroups(tenantId: number): Promise<SkillGroup[]>;
  /** Returns those of `ids` that are skill groups of `tenantId`. */
  existingSkillGroupIds(tenantId: number, ids: number[]): Promise<number[]>;
  renameSkillGroup(tenantId: number, id: number, name: string): Promise<SkillGroup | undefined>;
  /**
   * One transaction: reads what holds the group, calls `check` (which throws to refuse), then
   * deletes it with its agents' links. False when there was no such group.
   */
  deleteSkillGroup(tenantId: number, id: number, check: (holders: SkillGroupHolders) => void): Promise<boolean>;

  saveToken(tokenHash: string, userId: number, expiresAt: number): Promise<void>;
  findToken(tokenHash: string): Promise<{ userId: number; expiresAt: number } | undefined>;
  deleteToken(tokenHash: string): Promise<void>;
  deleteExpiredTokens(now: number): Promise<number>;
}

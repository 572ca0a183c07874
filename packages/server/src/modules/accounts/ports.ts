import type { AgentStatus, Edition, Role } from '@parley/protocol';

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
  createSkillGroup(tenantId: number, name: string, now: number): Promise<SkillGroup>;
  listSkillGroups(tenantId: number): Promise<SkillGroup[]>;
  /** Returns those of `ids` that are skill groups of `tenantId`. */
  existingSkillGroupIds(tenantId: number, ids: number[]): Promise<number[]>;
  renameSkillGroup(tenantId: number, id: number, name: string): Promise<SkillGroup | undefined>;
  saveToken(tokenHash: string, userId: number, expiresAt: number): Promise<void>;
  findToken(tokenHash: string): Promise<{ userId: number; expiresAt: number } | undefined>;
  deleteToken(tokenHash: string): Promise<void>;
  deleteExpiredTokens(now: number): Promise<number>;
}

/** The accounts writes of one transaction (the unit of work's `accounts`). */
export interface AccountsWrites {
  /**
   * Sets the user offline, which locks their row (a row lock on PostgreSQL, the write lock on
   * SQLite), so that no claim hands them a conversation meanwhile; false when there is no such user.
   */
  lockUserOffline(userId: number): Promise<boolean>;
  /** Deletes the user with their tokens and skill-group links. */
  deleteUser(userId: number): Promise<void>;
  /** Locks the skill group's row and answers what holds it; undefined when there is no such group. */
  lockSkillGroup(tenantId: number, id: number): Promise<SkillGroupHolders | undefined>;
  /** Deletes the skill group with its agents' links. */
  deleteSkillGroup(id: number): Promise<void>;
}

export interface AccountsTransaction {
  readonly accounts: AccountsWrites;
}

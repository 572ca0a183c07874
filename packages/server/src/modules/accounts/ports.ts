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

/** Storage port of the accounts module. Implementations must be atomic per method. */
export interface AccountsRepository {
  /** Creates tenant, its default skill group and its first admin in one transaction. */
  createTenant(input: { name: string; edition: Edition; admin: Omit<NewUser, 'tenantId' | 'queueIds'> }, now: number): Promise<{ tenant: Tenant; admin: User }>;
  getTenant(id: number): Promise<Tenant | undefined>;
  listTenants(): Promise<Tenant[]>;
  setVipTags(tenantId: number, tags: string[]): Promise<void>;
  countTenants(): Promise<number>;

  createUser(input: NewUser, now: number): Promise<User>;
  findUserByUsername(username: string): Promise<User | undefined>;
  getUser(id: number): Promise<User | undefined>;
  listAgents(tenantId: number): Promise<Array<User & { queueIds: number[] }>>;
  queueIdsOf(userId: number): Promise<number[]>;
  setStatus(userId: number, status: AgentStatus): Promise<void>;
  /** Sets the user's password hash and deletes every console token of the user, in one transaction. */
  resetPassword(userId: number, passwordHash: string): Promise<void>;
  hasSystemAdmin(): Promise<boolean>;

  createSkillGroup(tenantId: number, name: string, now: number): Promise<SkillGroup>;
  listSkillGroups(tenantId: number): Promise<SkillGroup[]>;
  /** Returns those of `ids` that are skill groups of `tenantId`. */
  existingSkillGroupIds(tenantId: number, ids: number[]): Promise<number[]>;

  saveToken(tokenHash: string, userId: number, expiresAt: number): Promise<void>;
  findToken(tokenHash: string): Promise<{ userId: number; expiresAt: number } | undefined>;
  deleteToken(tokenHash: string): Promise<void>;
  deleteExpiredTokens(now: number): Promise<number>;
}

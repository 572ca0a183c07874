import type { Generated } from 'kysely';
import type { AgentStatus, Edition, Role } from '@parley/protocol';

export interface TenantsTable {
  id: Generated<number>;
  name: string;
  edition: Edition;
  default_queue_id: number | null;
  /** JSON array of strings. */
  vip_tags: Generated<string>;
  created_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  tenant_id: number | null;
  username: string;
  password_hash: string;
  nickname: string;
  avatar: string | null;
  role: Role;
  max_sessions: Generated<number>;
  status: Generated<AgentStatus>;
  created_at: number;
}

export interface SkillGroupsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  created_at: number;
}

export interface AgentQueuesTable {
  user_id: number;
  queue_id: number;
}

export interface AccessTokensTable {
  token_hash: string;
  user_id: number;
  expires_at: number;
}

export interface AccountsTables {
  tenants: TenantsTable;
  users: UsersTable;
  skill_groups: SkillGroupsTable;
  agent_queues: AgentQueuesTable;
  access_tokens: AccessTokensTable;
}

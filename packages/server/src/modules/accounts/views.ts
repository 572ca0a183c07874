/** How accounts are shown on the wire, and who is calling. */
import type { AgentView, Role, TenantView, UserView } from '@parley/protocol';
import type { Tenant, User } from './ports.js';

/** Who is calling, as established from a bearer token. */
export interface Principal {
  userId: number;
  username: string;
  role: Role;
  tenantId: number | null;
}

export const userView = (u: User): UserView => ({
  id: u.id,
  username: u.username,
  nickname: u.nickname,
  role: u.role,
  tenantId: u.tenantId,
});

export const tenantView = (t: Tenant): TenantView => ({
  tenantId: t.id,
  name: t.name,
  edition: t.edition,
  defaultQueueId: String(t.defaultQueueId),
  vipTags: t.vipTags,
  createDateTime: t.createdAt,
});

export const agentView = (u: User, queueIds: number[]): AgentView => ({
  id: u.id,
  username: u.username,
  nickname: u.nickname,
  avatar: u.avatar,
  role: u.role,
  queue_ids: queueIds.map(String),
  max_sessions: u.maxSessions,
  status: u.status,
});

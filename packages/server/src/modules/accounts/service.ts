import type {
  AgentStatus,
  AgentView,
  CreateAgentRequest,
  CreateTenantRequest,
  LoginResult,
  Role,
  SkillGroupView,
  TenantView,
} from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { randomToken, sha256Hex } from '../../kernel/ids.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import { AccountsAdmin } from './admin.js';
import type { Passwords } from './password.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { AccountsRepository, AccountsTransaction, Tenant } from './ports.js';
import { agentView, tenantView, userView, type Principal } from './views.js';

export { agentView, tenantView, userView, type Principal } from './views.js';

const DEFAULT_MAX_SESSIONS = 10;

/** Login names are case-insensitive e-mails or plain names; stored folded to lower case. */
export const normaliseUsername = (username: string) => username.trim().toLowerCase();

/** Called after an agent's status changed (the channel assigns waiting conversations). */
export type AgentStatusListener = (tenantId: number, agentId: number, status: AgentStatus) => Promise<void>;

/** `Tx`: the transaction object of the accounts' atomic writes (admin.ts). */
export class AccountsService<Tx extends AccountsTransaction = AccountsTransaction> {
  private readonly statusListeners: AgentStatusListener[] = [];
  /** Editing and deleting tenants, skill groups and agents (admin.ts). */
  readonly admin: AccountsAdmin<Tx>;

  constructor(
    private readonly repo: AccountsRepository,
    uow: UnitOfWork<Tx>,
    private readonly clock: Clock,
    private readonly tokenTtlSeconds: number,
    private readonly passwords: Passwords,
  ) {
    // An online agent who got more room is, for the channel, an agent who came online.
    this.admin = new AccountsAdmin(repo, uow, passwords, async (tenantId, agentId) => {
      for (const listener of this.statusListeners) await listener(tenantId, agentId, 'online');
    });
  }

  /** `ip` is the caller's address, for the back-off (login-backoff.ts). */
  async login(username: string, password: string, ip: string): Promise<LoginResult> {
    const name = normaliseUsername(username);
    const user = await this.repo.findUserByUsername(name);
    const ok = await this.passwords.attempt(`console:${name}`, ip, password, user?.passwordHash, { lane: 'console' });
    if (!user || !ok) throw new AppError('invalid_credentials');
    const token = randomToken(32);
    await this.repo.saveToken(sha256Hex(token), user.id, this.clock.now() + this.tokenTtlSeconds * 1000);
    return { access_token: token, expires_in: this.tokenTtlSeconds, user: userView(user) };
  }

  /** Signs out: the token is no longer accepted anywhere (an unknown one is ignored). */
  async revokeToken(token: string): Promise<void> {
    await this.repo.deleteToken(sha256Hex(token));
  }

  /** Resolves a bearer token; undefined when unknown or expired. */
  async authenticate(token: string): Promise<Principal | undefined> {
    const found = await this.repo.findToken(sha256Hex(token));
    if (!found || found.expiresAt <= this.clock.now()) return undefined;
    const user = await this.repo.getUser(found.userId);
    if (!user) return undefined;
    return { userId: user.id, username: user.username, role: user.role, tenantId: user.tenantId };
  }

  async createTenant(input: CreateTenantRequest): Promise<TenantView> {
    const passwordHash = await this.passwords.hash(input.admin.password);
    try {
      const { tenant } = await this.repo.createTenant(
        {
          name: input.name.trim(),
          edition: input.edition,
          admin: {
            username: normaliseUsername(input.admin.username),
            passwordHash,
            nickname: input.admin.nickname,
            avatar: null,
            role: 'admin',
            maxSessions: DEFAULT_MAX_SESSIONS,
          },
        },
        this.clock.now(),
      );
      return tenantView(tenant);
    } catch (error) {
      if (isConflict(error, 'unique')) throw new AppError('conflict', { resource: 'User', detail: `username ${input.admin.username}` });
      throw error;
    }
  }

  async listTenants(): Promise<TenantView[]> {
    return (await this.repo.listTenants()).map(tenantView);
  }

  async requireTenant(tenantId: number): Promise<Tenant> {
    const tenant = await this.repo.getTenant(tenantId);
    if (!tenant) throw new AppError('not_found', { resource: `Tenant ${tenantId}` });
    return tenant;
  }

  async getTenant(tenantId: number): Promise<TenantView> {
    return tenantView(await this.requireTenant(tenantId));
  }

  async setVipTags(tenantId: number, tags: string[]): Promise<TenantView> {
    await this.requireTenant(tenantId);
    await this.repo.setVipTags(tenantId, [...new Set(tags.map((t) => t.trim()).filter(Boolean))]);
    return this.getTenant(tenantId);
  }

  async createSkillGroup(tenantId: number, queueName: string): Promise<SkillGroupView> {
    await this.requireTenant(tenantId);
    try {
      const group = await this.repo.createSkillGroup(tenantId, queueName.trim(), this.clock.now());
      return { queue_id: String(group.id), queue_name: group.name };
    } catch (error) {
      if (isConflict(error, 'unique')) throw new AppError('conflict', { resource: 'Skill group', detail: `queue_name ${queueName}` });
      throw error;
    }
  }

  async listSkillGroups(tenantId: number): Promise<SkillGroupView[]> {
    await this.requireTenant(tenantId);
    return (await this.repo.listSkillGroups(tenantId)).map((g) => ({ queue_id: String(g.id), queue_name: g.name }));
  }

  async createAgent(tenantId: number, input: CreateAgentRequest): Promise<AgentView> {
    await this.requireTenant(tenantId);
    const queueIds = [...new Set(input.queue_ids ?? [])].map((id) => (/^\d+$/.test(id) ? Number(id) : NaN));
    const existing = await this.repo.existingSkillGroupIds(tenantId, queueIds.filter(Number.isFinite));
    const unknown = (input.queue_ids ?? []).filter((id, i) => !existing.includes(queueIds[i] as number));
    if (unknown.length) throw new AppError('invalid_request', { detail: `queue_ids: unknown skill group ${unknown.join(', ')}` });
    try {
      const user = await this.repo.createUser(
        {
          tenantId,
          username: normaliseUsername(input.username),
          passwordHash: await this.passwords.hash(input.password),
          nickname: input.nickname,
          avatar: input.avatar ?? null,
          role: input.role,
          maxSessions: input.max_sessions ?? DEFAULT_MAX_SESSIONS,
          queueIds: existing,
        },
        this.clock.now(),
      );
      return agentView(user, existing.sort((a, b) => a - b));
    } catch (error) {
      if (isConflict(error, 'unique')) throw new AppError('conflict', { resource: 'User', detail: `username ${input.username}` });
      throw error;
    }
  }

  async listAgents(tenantId: number): Promise<AgentView[]> {
    await this.requireTenant(tenantId);
    return (await this.repo.listAgents(tenantId)).map((u) => agentView(u, u.queueIds));
  }

  onAgentStatus(listener: AgentStatusListener): void {
    this.statusListeners.push(listener);
  }

  async setAgentStatus(tenantId: number, agentId: number, status: AgentStatus): Promise<AgentView> {
    const user = await this.repo.getUser(agentId);
    if (!user || user.tenantId !== tenantId) throw new AppError('not_found', { resource: `Agent ${agentId}` });
    await this.repo.setStatus(agentId, status);
    for (const listener of this.statusListeners) await listener(tenantId, agentId, status);
    return agentView({ ...user, status }, await this.repo.queueIdsOf(agentId));
  }

  /** Drops expired tokens; run periodically. */
  purgeExpiredTokens(): Promise<number> {
    return this.repo.deleteExpiredTokens(this.clock.now());
  }
}

/** Access rules shared by every tenant-scoped route. */
export function assertTenantAccess(principal: Principal, tenantId: number, roles: readonly Role[]): void {
  if (principal.role === 'system_admin') return;
  if (principal.tenantId !== tenantId) throw new AppError('forbidden', { detail: 'this tenant is not yours' });
  if (!roles.includes(principal.role)) throw new AppError('forbidden', { detail: `requires role ${roles.join(' or ')}` });
}

export function assertRole(principal: Principal, roles: readonly Role[]): void {
  if (!roles.includes(principal.role)) throw new AppError('forbidden', { detail: `requires role ${roles.join(' or ')}` });
}

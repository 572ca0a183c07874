/**
 * Everyday administration (contract 6.3): edit a tenant (system admin), rename and delete skill
 * groups, edit and delete agents, change passwords. What may be done is decided here; the
 * repository carries each change out in one transaction.
 */
import type { AgentDeleted, AgentView, PasswordChanged, SkillGroupView, TenantView, UpdateAgentRequest, UpdateTenantRequest } from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';
import { sha256Hex } from '../../kernel/ids.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import type { Passwords } from './password.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { AccountsRepository, AccountsTransaction, SkillGroupHolders, User, UserPatch } from './ports.js';
import { agentView, tenantView, type Principal } from './views.js';

/**
 * What the channel does when an agent is deleted: inside the deletion's transaction it puts the
 * agent's processing conversations back in their queues as waiting; `afterCommit` hands them out.
 */
export type AgentRemovalHook<Tx> = (tx: Tx, tenantId: number, agentId: number) => Promise<{ requeued: number; afterCommit: () => Promise<void> }>;

/** Called when an online agent may take more conversations (new skill groups, more sessions). */
export type AgentCapacityListener = (tenantId: number, agentId: number) => Promise<void>;

/** Why a skill group cannot be deleted, or undefined when nothing holds it. */
export function skillGroupHeldBy(holders: SkillGroupHolders): string | undefined {
  const reasons: string[] = [];
  if (holders.tenantDefault) reasons.push("it is the tenant's default skill group");
  if (holders.associations.length > 0) {
    const names = holders.associations.map((a) => `${a.id} (${a.name})`).join(', ');
    reasons.push(`it is the default queue of association${holders.associations.length > 1 ? 's' : ''} ${names}`);
  }
  if (holders.openConversations > 0) reasons.push(`it has ${holders.openConversations} waiting or processing conversation${holders.openConversations > 1 ? 's' : ''}`);
  return reasons.length ? reasons.join('; ') : undefined;
}

const isAdmin = (p: Principal) => p.role === 'admin' || p.role === 'system_admin';

/** Fields an agent may change on their own account. */
const SELF_EDITABLE = new Set(['nickname', 'avatar']);

/** `Tx`: the transaction object an agent's deletion runs in, which the removal hook gets too. */
export class AccountsAdmin<Tx extends AccountsTransaction = AccountsTransaction> {
  /** The hook, held as a method (so an admin of a wider transaction still types as one of AccountsTransaction). */
  private removal: { run(tx: Tx, tenantId: number, agentId: number): ReturnType<AgentRemovalHook<Tx>> } | undefined;

  constructor(
    private readonly repo: AccountsRepository,
    private readonly uow: UnitOfWork<Tx>,
    private readonly passwords: Passwords,
    private readonly capacity: AgentCapacityListener,
  ) {}

  /** Set by the composition root: the channel's part of deleting an agent. */
  onAgentRemoval(hook: AgentRemovalHook<Tx>): void {
    this.removal = { run: hook };
  }

  async updateTenant(tenantId: number, input: UpdateTenantRequest): Promise<TenantView> {
    const name = input.name?.trim();
    if (name === '') throw new AppError('invalid_request', { detail: 'name must not be blank' });
    const updated = await this.repo.updateTenant(tenantId, { ...(name !== undefined ? { name } : {}), ...(input.edition ? { edition: input.edition } : {}) });
    if (!updated) throw new AppError('not_found', { resource: `Tenant ${tenantId}` });
    return tenantView(updated);
  }

  async renameSkillGroup(tenantId: number, queueId: number, queueName: string): Promise<SkillGroupView> {
    const name = queueName.trim();
    if (name === '') throw new AppError('invalid_request', { detail: 'queue_name must not be blank' });
    try {
      const group = await this.repo.renameSkillGroup(tenantId, queueId, name);
      if (!group) throw new AppError('not_found', { resource: `Skill group ${queueId}` });
      return { queue_id: String(group.id), queue_name: group.name };
    } catch (error) {
      if (isConflict(error, 'unique')) throw new AppError('duplicate_name', { resource: 'Skill group', name }, { cause: error });
      throw error;
    }
  }

  /** Refused with 409 `in_use` while anything holds the group (skillGroupHeldBy); nothing moves. */
  async deleteSkillGroup(tenantId: number, queueId: number): Promise<void> {
    await this.uow.run(async ({ accounts }) => {
      const holders = await accounts.lockSkillGroup(tenantId, queueId);
      if (!holders) throw new AppError('not_found', { resource: `Skill group ${queueId}` });
      const heldBy = skillGroupHeldBy(holders);
      if (heldBy) throw new AppError('in_use', { resource: `Skill group ${queueId}`, detail: heldBy });
      await accounts.deleteSkillGroup(queueId);
    });
  }

  private async requireMember(tenantId: number, agentId: number): Promise<User> {
    const user = await this.repo.getUser(agentId);
    if (!user || user.tenantId !== tenantId) throw new AppError('not_found', { resource: `Agent ${agentId}` });
    return user;
  }

  /** The ids of `raw` as skill groups of the tenant; 400 naming those that are not. */
  private async checkedQueueIds(tenantId: number, raw: string[]): Promise<number[]> {
    const ids = [...new Set(raw)];
    const numeric = ids.map((id) => (/^\d{1,16}$/.test(id) ? Number(id) : NaN));
    const existing = await this.repo.existingSkillGroupIds(tenantId, numeric.filter(Number.isFinite));
    const unknown = ids.filter((_, i) => !existing.includes(numeric[i] as number));
    if (unknown.length) throw new AppError('invalid_request', { detail: `queue_ids: unknown skill group ${unknown.join(', ')}` });
    return existing.sort((a, b) => a - b);
  }

  /**
   * Admins change any field, a new `password` included (the user's other sessions are signed out;
   * the caller's own stays). Agents change their own nickname and avatar. Nobody changes their
   * own role (409 `own_account`), so a tenant cannot lose its last admin by a slip.
   */
  async updateAgent(tenantId: number, agentId: number, principal: Principal, input: UpdateAgentRequest, callerToken: string | undefined): Promise<AgentView> {
    const user = await this.requireMember(tenantId, agentId);
    const self = principal.userId === agentId;
    if (!isAdmin(principal)) {
      if (!self) throw new AppError('forbidden', { detail: 'agents edit their own account only' });
      const other = Object.keys(input).filter((k) => !SELF_EDITABLE.has(k));
      if (other.length) throw new AppError('forbidden', { detail: `agents change their own nickname and avatar only, not ${other.join(', ')}` });
    }
    if (self && input.role !== undefined && input.role !== user.role) throw new AppError('own_account', { action: 'change the role of' });
    const queueIds = input.queue_ids === undefined ? undefined : await this.checkedQueueIds(tenantId, input.queue_ids);
    const patch: UserPatch = {
      ...(input.nickname !== undefined ? { nickname: input.nickname } : {}),
      ...(input.avatar !== undefined ? { avatar: input.avatar } : {}),
      ...(input.role !== undefined ? { role: input.role } : {}),
      ...(input.max_sessions !== undefined ? { maxSessions: input.max_sessions } : {}),
      ...(queueIds !== undefined ? { queueIds } : {}),
      ...(input.password !== undefined ? { passwordHash: await this.passwords.hash(input.password) } : {}),
    };
    const revoke = input.password !== undefined ? { keepHash: self && callerToken ? sha256Hex(callerToken) : undefined } : undefined;
    const updated = await this.repo.updateUser(agentId, patch, revoke);
    if (!updated) throw new AppError('not_found', { resource: `Agent ${agentId}` });
    if (updated.user.status === 'online' && (queueIds !== undefined || input.max_sessions !== undefined)) await this.capacity(tenantId, agentId);
    return agentView(updated.user, await this.repo.queueIdsOf(agentId));
  }

  /**
   * Deletes an agent or tenant admin in one transaction: their processing conversations go back
   * to their queues as waiting (the channel's hook), their sessions end. Nobody deletes their
   * own account (409 `own_account`).
   */
  async deleteAgent(tenantId: number, agentId: number, principal: Principal): Promise<AgentDeleted> {
    await this.requireMember(tenantId, agentId);
    if (principal.userId === agentId) throw new AppError('own_account', { action: 'delete' });
    // The row lock first, so that no claim (which locks the agent's row too) hands them a conversation meanwhile.
    const removed = await this.uow.run(async (tx) => {
      if (!(await tx.accounts.lockUserOffline(agentId))) throw new AppError('not_found', { resource: `Agent ${agentId}` });
      const outcome = await this.removal?.run(tx, tenantId, agentId);
      await tx.accounts.deleteUser(agentId);
      return outcome;
    });
    await removed?.afterCommit();
    return { deleted: true, id: agentId, requeued_conversations: removed?.requeued ?? 0 };
  }

  /**
   * A signed-in user changes their own password: the current one is checked through the login
   * back-off (wrong guesses count as failed sign-ins), then every other session of theirs ends.
   */
  async changeOwnPassword(principal: Principal, current: string, next: string, ip: string, callerToken: string | undefined): Promise<PasswordChanged> {
    const user = await this.repo.getUser(principal.userId);
    if (!user) throw new AppError('unauthorized');
    const ok = await this.passwords.attempt(`console:${user.username}`, ip, current, user.passwordHash, { lane: 'console' });
    if (!ok) throw new AppError('wrong_current_password');
    const passwordHash = await this.passwords.hash(next);
    const updated = await this.repo.updateUser(user.id, { passwordHash }, { keepHash: callerToken ? sha256Hex(callerToken) : undefined });
    if (!updated) throw new AppError('unauthorized');
    return { changed: true, revoked_tokens: updated.revokedTokens };
  }
}

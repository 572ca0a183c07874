/**
 * Invitations held for the invitee's confirmation, as Easemob's `inviteNeedConfirm` groups work: a
 * user's invitation to such a group adds nobody; it is kept (one per group and invitee, a second
 * replacing the first) and the invitee is told (`inviteToJoin`). The invitee answers
 * (`acceptGroupInvite` / `rejectGroupInvite`, `POST /chatgroups/{id}/invite_verify`): accepting makes
 * them a member (their inviter hears `acceptInvite`, the other members `memberPresence`), declining
 * drops the invitation (the inviter hears `rejectInvite`). The app token's invitations add at once,
 * as Easemob's server API does. An invitation is gone with its group or its invitee. Each change is
 * written with its callback jobs in one transaction, then announced (`ImGroupsService.perform`).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { GroupOperation, Operator } from './group-events.js';
import { full, type ImGroupsService } from './groups.js';
import type { ImApp, ImGroup, ImGroupsRepository, ImTransaction } from './ports.js';
import { validUsername } from './users.js';

/** Whether an invitation by `operator` to this group waits for the invitee (a user's, to a group that asks for it). */
export const needsConfirmation = (group: ImGroup, operator: Operator): boolean => operator !== null && group.kind === 'group' && group.settings.inviteNeedConfirm;

export class GroupInvitesService {
  constructor(
    private readonly groupsRepo: Pick<ImGroupsRepository, 'isMember' | 'countMembers'>,
    private readonly groups: ImGroupsService,
    private readonly clock: Clock,
  ) {}

  /** Keeps the invitations of users who are not members yet and tells them. */
  async hold(app: ImApp, group: ImGroup, usernames: readonly string[], inviter: string, reason = ''): Promise<void> {
    if (usernames.length === 0) return;
    const now = this.clock.now();
    await this.groups.perform(app, group, inviter, { op: 'invite', users: [...usernames], reason }, (tx) => tx.groups.holdInvites(group, usernames, inviter, reason, now));
  }

  /**
   * The invitee (their token, or the app for them) accepts or declines; 404 when they hold no
   * invitation to the group, 403 for another user's invitation or, on accepting, a full group.
   */
  async answer(app: ImApp, id: string, invitee: string, accept: boolean, operator: Operator): Promise<void> {
    const group = await this.groups.require(app, 'group', id);
    const name = validUsername(invitee, 'invitee');
    if (operator !== null && operator !== name) throw new AppError('forbidden_op', { detail: `an invitation is answered by its invitee (${name}), not ${operator}` });
    const none = () => new AppError('service_resource_not_found', { resource: `Service resource invitation of ${name} to group ${id}` });
    if (!accept) {
      // Who invited is known once the invitation is taken: the subscribers are told (a refusal has no callback record).
      const drop = (tx: ImTransaction) => tx.groups.dropInvite(group.id, name);
      const told = (dropped: { inviter: string } | undefined) => ({ op: 'inviteDecline', user: name, inviter: dropped?.inviter ?? '' }) as const;
      if (!(await this.groups.perform(app, group, name, told(undefined), drop, { done: Boolean, told }))) throw none();
      return;
    }
    const member = await this.groupsRepo.isMember(group.id, name);
    const count = await this.groupsRepo.countMembers(group.id);
    if (!member && count >= group.maxusers) throw full();
    const now = this.clock.now();
    // The JOIN record (type INVITE) is the invitee's; the inviter, known once the invitation is taken, is told to the subscribers.
    const join: GroupOperation = { op: 'join', users: [name], way: 'INVITE' };
    const take = (tx: ImTransaction) => tx.groups.acceptInvite(group, name, now);
    const told = (accepted: { inviter: string } | undefined): GroupOperation => ({ op: 'join', users: [name], way: 'INVITE', ...(accepted ? { inviter: accepted.inviter } : {}) });
    const accepted = await this.groups.perform(app, group, name, join, take, { done: Boolean, memberCount: member ? count : count + 1, told });
    if (!accepted) throw none();
  }
}

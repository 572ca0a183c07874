/**
 * Invitations held for the invitee's confirmation, as Easemob's `inviteNeedConfirm` groups work: a
 * user's invitation to such a group adds nobody; it is kept (one per group and invitee, a second
 * replacing the first) and the invitee is told (`inviteToJoin`). The invitee answers
 * (`acceptGroupInvite` / `rejectGroupInvite`, `POST /chatgroups/{id}/invite_verify`): accepting makes
 * them a member (their inviter hears `acceptInvite`, the other members `memberPresence`), declining
 * drops the invitation (the inviter hears `rejectInvite`). The app token's invitations add at once,
 * as Easemob's server API does. An invitation is gone with its group or its invitee.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { Operator } from './group-events.js';
import { full, type ImGroupsService } from './groups.js';
import type { ImApp, ImGroup, ImGroupsRepository } from './ports.js';
import type { ImGroupInvitesRepository } from './sdk-ports.js';
import { validUsername } from './users.js';

/** Whether an invitation by `operator` to this group waits for the invitee (a user's, to a group that asks for it). */
export const needsConfirmation = (group: ImGroup, operator: Operator): boolean => operator !== null && group.kind === 'group' && group.settings.inviteNeedConfirm;

export class GroupInvitesService {
  constructor(
    private readonly repo: ImGroupInvitesRepository,
    private readonly groupsRepo: Pick<ImGroupsRepository, 'isMember' | 'countMembers'>,
    private readonly groups: ImGroupsService,
    private readonly clock: Clock,
  ) {}

  /** Keeps the invitations of users who are not members yet and tells them. */
  async hold(app: ImApp, group: ImGroup, usernames: readonly string[], inviter: string, reason = ''): Promise<void> {
    if (usernames.length === 0) return;
    await this.repo.hold(group, usernames, inviter, reason, this.clock.now());
    await this.groups.announce(app, group, inviter, { op: 'invite', users: [...usernames], reason });
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
      const dropped = await this.repo.drop(group.id, name);
      if (!dropped) throw none();
      await this.groups.announce(app, group, name, { op: 'inviteDecline', user: name, inviter: dropped.inviter });
      return;
    }
    if (!(await this.groupsRepo.isMember(group.id, name)) && (await this.groupsRepo.countMembers(group.id)) >= group.maxusers) throw full();
    const accepted = await this.repo.accept(group, name, this.clock.now());
    if (!accepted) throw none();
    await this.groups.announce(app, group, name, { op: 'join', users: [name], way: 'INVITE', inviter: accepted.inviter });
  }
}

/**
 * Groups from their users' side, as Easemob's Web SDK asks (`joinGroup`, `leaveGroup`,
 * `inviteUsersToGroup`, `changeGroupOwner`, the member and public-group pages). The operator is a
 * user (their token) or the app (`null`, the app token), who may do everything. Who may do what:
 * - join: a public group without `approval`, at once; with `approval`, a request the owner (or an
 *   admin) accepts or declines (`verify`); a private group is refused (403), and so is a user on
 *   the group's block list (group-roles.ts), who cannot be invited either;
 * - leave: any member but the owner (who gives the group away or deletes it first);
 * - invite: the owner always, members when the group `allowinvites`; invited users are added at
 *   once, or, when a user invites to a group with `invite_need_confirm`, invited and added only once
 *   they accept (group-invites.ts);
 * - change of owner: the owner, to a member.
 * Every change is written with its callback jobs in one transaction, then announced
 * (`ImGroupsService.perform`, group-events.ts).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { GroupOperation, Operator } from './group-events.js';
import { needsConfirmation, type GroupInvitesService } from './group-invites.js';
import { full, type ImGroupsService } from './groups.js';
import { decodeCursor, pageOf, type Page } from './paging.js';
import type { ImApp, ImGroupListed, ImGroupsRepository, ImMember, ImTransaction } from './ports.js';
import { validUsername, type ImUsersService } from './users.js';

/** Names one invitation takes at most (Easemob's batch). */
export const MAX_INVITES = 60;
/** A request's message (or a refusal's reason), at most. */
export const MAX_REASON = 500;

export class GroupMembershipService {
  constructor(
    private readonly repo: ImGroupsRepository,
    private readonly groups: ImGroupsService,
    private readonly users: ImUsersService,
    private readonly clock: Clock,
    private readonly invites: Pick<GroupInvitesService, 'hold'>,
  ) {}

  /**
   * The user joins a public group: `joined` at once, or `requested` when the group needs its
   * owner's approval (the owner is told); `member` when they already were one.
   */
  async join(app: ImApp, id: string, username: string, reason = ''): Promise<'joined' | 'requested' | 'member'> {
    if (reason.length > MAX_REASON) throw new AppError('illegal_argument', { detail: `message: at most ${MAX_REASON} characters` });
    const group = await this.groups.require(app, 'group', id);
    const name = (await this.users.require(app, username)).username;
    if (await this.repo.isMember(group.id, name)) return 'member';
    if (!group.public) throw new AppError('forbidden_op', { detail: `group ${id} is private: only its owner (or a member, when it allows invites) can add users` });
    await this.groups.assertNotBlocked(group, [name]);
    if (group.settings.approval) {
      const now = this.clock.now();
      await this.groups.perform(app, group, name, { op: 'apply', user: name, reason }, (tx) => tx.groups.requestJoin(group, name, reason, now));
      return 'requested';
    }
    return (await this.groups.addMember(app, 'group', id, name, name, 'APPLY')) ? 'joined' : 'member';
  }

  /** The owner, an admin (or the app) accepts or declines a request to join; 404 when there is none. */
  async verify(app: ImApp, id: string, applicant: string, accept: boolean, reason: string, operator: Operator): Promise<void> {
    const group = await this.groups.require(app, 'group', id);
    await this.groups.assertManager(group, operator);
    const name = validUsername(applicant, 'applicant');
    const none = () => new AppError('service_resource_not_found', { resource: `Service resource request of ${name} to join group ${id}` });
    if (!accept) {
      const dropped = await this.groups.perform(app, group, operator, { op: 'decline', user: name, reason }, (tx) => tx.groups.dropJoinRequest(group.id, name), { done: Boolean });
      if (!dropped) throw none();
      return;
    }
    const count = await this.repo.countMembers(group.id);
    if (count >= group.maxusers) throw full();
    const now = this.clock.now();
    const accepted = (tx: ImTransaction) => tx.groups.acceptJoinRequest(group, name, now);
    if (!(await this.groups.perform(app, group, operator, { op: 'join', users: [name], way: 'APPLY' }, accepted, { done: Boolean, memberCount: count + 1 }))) throw none();
  }

  /** A member leaves; the owner cannot. */
  async leave(app: ImApp, id: string, username: string): Promise<void> {
    const group = await this.groups.require(app, 'group', id);
    const name = validUsername(username);
    if (name === group.owner) throw new AppError('forbidden_op', { detail: `the owner cannot leave group ${id}: give it to another member (changeGroupOwner) or delete it` });
    await this.groups.removeMember(app, 'group', id, name, name);
  }

  /**
   * Adds the invited users who are not members yet, at once, or invites them when the group needs
   * their confirmation; answers them. Owner, app, or a member when the group allows invites.
   */
  async invite(app: ImApp, id: string, usernames: readonly string[], operator: Operator): Promise<string[]> {
    if (usernames.length === 0 || usernames.length > MAX_INVITES) throw new AppError('illegal_argument', { detail: `usernames: 1 to ${MAX_INVITES} names` });
    const group = await this.groups.require(app, 'group', id);
    if (operator !== null && operator !== group.owner) {
      if (!(await this.repo.isMember(group.id, operator))) throw new AppError('forbidden_op', { detail: `only a member of group ${id} may invite` });
      if (!group.settings.allowInvites) throw new AppError('forbidden_op', { detail: `group ${id} lets only its owner invite` });
    }
    const names = [...new Set(usernames.map((n, i) => validUsername(n, `usernames[${i}]`)))];
    const missing = await this.users.missing(app, names);
    if (missing.length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${missing.join(', ')}` });
    const current = new Set(await this.groups.memberNames(group));
    const fresh = names.filter((n) => !current.has(n));
    await this.groups.assertNotBlocked(group, fresh);
    if (operator !== null && needsConfirmation(group, operator)) {
      await this.invites.hold(app, group, fresh, operator);
      return names;
    }
    if (current.size + fresh.length > group.maxusers) throw full();
    if (fresh.length === 0) return names;
    const now = this.clock.now();
    // The record names the users who were not members when asked; one added meanwhile by another request is not added again.
    const join: GroupOperation = { op: 'join', users: fresh, way: operator === null ? 'DIRECT' : 'INVITE' };
    await this.groups.perform(
      app,
      group,
      operator,
      join,
      async (tx) => {
        let added = 0;
        for (const name of fresh) if (await tx.groups.addMember(group, name, now)) added++;
        return added;
      },
      { done: (added) => added > 0, memberCount: current.size + fresh.length },
    );
    return names;
  }

  /** Gives the group to one of its members. */
  async changeOwner(app: ImApp, id: string, newOwner: string, operator: Operator): Promise<void> {
    const group = await this.groups.require(app, 'group', id);
    this.groups.assertOwner(group, operator);
    const name = validUsername(newOwner, 'newowner');
    if (name === group.owner) return;
    const notMember = () => new AppError('illegal_argument', { detail: `newowner: ${name} is not a member of group ${id}` });
    if (!(await this.repo.isMember(group.id, name))) throw notMember();
    const now = this.clock.now();
    // A change that fails (the owner changed meanwhile) throws, which rolls back its promotion of the new owner.
    await this.groups.perform(app, { ...group, owner: name }, operator, { op: 'owner', previous: group.owner, owner: name }, async (tx) => {
      if (!(await tx.groups.changeOwner(group, name, now))) throw notMember();
      // A new owner is no admin.
      await tx.groups.dropFromList(group.id, 'admin', [name]);
    });
  }

  /** Page `pagenum` (from 1) of `pagesize` members, the owner first. */
  async membersPage(app: ImApp, kind: 'group' | 'chatroom', id: string, pagenum: number, pagesize: number): Promise<ImMember[]> {
    const group = await this.groups.require(app, kind, id);
    return this.repo.membersPage(group.id, (pagenum - 1) * pagesize, pagesize);
  }

  /** A page of the app's public groups, newest first. */
  async publicGroups(app: ImApp, limit: number, cursor: string | undefined): Promise<Page<ImGroupListed>> {
    const after = cursor === undefined ? undefined : decodeCursor('public', cursor);
    const rows = await this.repo.listPublicGroups(app.id, after, limit + 1);
    return pageOf('public', rows, limit, (g) => ({ at: g.createdAt, id: g.id }));
  }
}

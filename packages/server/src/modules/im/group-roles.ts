/**
 * A group's or chat room's admins, block list and allow list, as Easemob's Web SDK manages them
 * (`setGroupAdmin`, `blockGroupMember(s)`, `addUsersToGroupAllowlist`, ... and their `ChatRoom`
 * twins): the same rules and lists for both kinds, each call naming its `kind`. Who may do what:
 * - admins: the owner (or the app) makes members admins and unmakes them; anyone in the group reads them;
 * - block list, allow list: the owner, an admin or the app changes and reads them (an admin not on
 *   the owner or another admin); a member may ask whether they are on the allow list;
 * - a blocked user is removed from the group and cannot join, be invited or be added again until
 *   unblocked.
 * Calls on several users check them all first: one refused refuses all. Each change is written with
 * its callback jobs in one transaction, then announced (`ImGroupsService.perform`, group-events.ts).
 * Mutes and announcements are group-mutes.ts's.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { Operator } from './group-events.js';
import type { GroupRoleChecks, ImGroupsService } from './groups.js';
import type { GroupKind, GroupList, ImApp, ImGroup, ImGroupsRepository, ImTransaction } from './ports.js';
import { validUsername, type ImUsersService } from './users.js';

export type { GroupList };

export interface GroupListEntry {
  username: string;
  /** A mute's end, ms; null: until unmuted (always null for the other lists). */
  expiresAt: number | null;
}

/** What a user writing to the group is subject to. */
export interface SpeakState {
  member: boolean;
  /** On the mute list, the mute not ended at `now`. */
  muted: boolean;
  allMuted: boolean;
  /** An admin or on the allow list: not subject to `allMuted`. */
  exempt: boolean;
}

/**
 * The storage port of admins, mutes, block and allow lists, and the announcement (migrations 120,
 * 121): its reads. The writes are the IM transaction's (`ImGroupWrites`), with the operation's
 * callback jobs.
 */
export interface ImGroupRolesRepository {
  /** A list, in the order users were put on it; mutes ended by `now` left out. */
  list(groupId: string, list: GroupList, now: number): Promise<GroupListEntry[]>;
  /** Which of `usernames` are on a list (mutes: not ended by `now`). */
  onList(groupId: string, list: GroupList, usernames: readonly string[], now: number): Promise<string[]>;
  speakState(group: ImGroup, username: string, now: number): Promise<SpeakState>;
  notes(groupId: string): Promise<{ announcement: string; allMuted: boolean }>;
}

/** Names one call takes at most (Easemob's batch). */
export const MAX_LIST_USERS = 60;

export class GroupRolesService {
  constructor(
    private readonly repo: ImGroupRolesRepository,
    private readonly groupsRepo: Pick<ImGroupsRepository, 'isMember'>,
    private readonly groups: ImGroupsService,
    private readonly users: ImUsersService,
    private readonly clock: Clock,
  ) {}

  /** What the groups, membership and messages services ask (set on the groups service by the module). */
  checks(): GroupRoleChecks {
    return {
      isAdmin: async (group, username) => (await this.repo.onList(group.id, 'admin', [username], this.clock.now())).length > 0,
      blocked: async (group, usernames) => (usernames.length === 0 ? [] : this.repo.onList(group.id, 'block', usernames, this.clock.now())),
      assertMaySend: async (group, username) => {
        if (username === group.owner) return;
        const state = await this.repo.speakState(group, username, this.clock.now());
        // The app's own sends (a sender who is no member) are not held back by a mute of all.
        if (state.muted || (state.allMuted && state.member && !state.exempt)) {
          throw new AppError('forbidden_op', { detail: `${username} is muted in ${group.kind} ${group.id}`, rule: 'muted' });
        }
      },
    };
  }

  /** The names of a multi-user call: 1 to 60, each a user of the app (404 naming those who are not). */
  async usersOf(app: ImApp, usernames: readonly string[], field = 'usernames'): Promise<string[]> {
    if (usernames.length === 0 || usernames.length > MAX_LIST_USERS) throw new AppError('illegal_argument', { detail: `${field}: 1 to ${MAX_LIST_USERS} names` });
    const names = [...new Set(usernames.map((n, i) => validUsername(n, `${field}[${i}]`)))];
    const missing = await this.users.missing(app, names);
    if (missing.length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${missing.join(', ')}` });
    return names;
  }

  async admins(app: ImApp, kind: GroupKind, id: string): Promise<string[]> {
    const group = await this.groups.require(app, kind, id);
    return (await this.repo.list(group.id, 'admin', this.clock.now())).map((e) => e.username);
  }

  /** The owner makes a member an admin (true), or unmakes one (false; 404 when they were none). */
  async setAdmin(app: ImApp, kind: GroupKind, id: string, username: string, added: boolean, operator: Operator): Promise<string> {
    const group = await this.groups.require(app, kind, id);
    this.groups.assertOwner(group, operator);
    const [name] = await this.usersOf(app, [username], 'username');
    const user = name as string;
    const operation = { op: 'admin', user, added } as const;
    if (added) {
      if (user === group.owner) throw new AppError('forbidden_op', { detail: `${user} owns ${kind} ${id}` });
      if (!(await this.groupsRepo.isMember(group.id, user))) throw new AppError('forbidden_op', { detail: `${user} is not a member of ${kind} ${id}` });
      const now = this.clock.now();
      await this.groups.perform(app, group, operator, operation, (tx) => tx.groups.putOnList(group, 'admin', [user], null, now));
    } else if ((await this.groups.perform(app, group, operator, operation, (tx) => tx.groups.dropFromList(group.id, 'admin', [user]), { done: (dropped) => dropped.length > 0 })).length === 0) {
      throw new AppError('service_resource_not_found', { resource: `Service resource admin ${user} of ${kind} ${id}` });
    }
    return user;
  }

  /** Blocks users: members among them are removed; none may be the owner (nor, for an admin, another admin). */
  async block(app: ImApp, kind: GroupKind, id: string, usernames: readonly string[], operator: Operator): Promise<string[]> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const names = await this.usersOf(app, usernames);
    for (const name of names) {
      if (name === group.owner || name === operator) throw new AppError('forbidden_op', { detail: `${name} cannot be blocked from ${kind} ${id}` });
      await this.groups.assertManager(group, operator, name);
    }
    const now = this.clock.now();
    // The members removed are known once written: the subscribers are told them (a block has no callback record).
    const block = (tx: ImTransaction) => tx.groups.block(group, names, now);
    await this.groups.perform(app, group, operator, { op: 'block', users: names, removed: [] }, block, { told: (removed) => ({ op: 'block', users: names, removed }) });
    return names;
  }

  /** Takes users off the block list (those who were not on it too); answers them. */
  async unblock(app: ImApp, kind: GroupKind, id: string, usernames: readonly string[], operator: Operator): Promise<string[]> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const names = await this.usersOf(app, usernames);
    await this.groups.write((tx) => tx.groups.dropFromList(group.id, 'block', names));
    return names;
  }

  /** The block list or the allow list (owner, admins, the app). */
  async listOf(app: ImApp, kind: GroupKind, id: string, list: 'block' | 'allow', operator: Operator): Promise<string[]> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    return (await this.repo.list(group.id, list, this.clock.now())).map((e) => e.username);
  }

  /** Puts users on the allow list (true) or takes them off (false); answers them. */
  async allow(app: ImApp, kind: GroupKind, id: string, usernames: readonly string[], added: boolean, operator: Operator): Promise<string[]> {
    const group = await this.groups.require(app, kind, id);
    await this.groups.assertManager(group, operator);
    const names = await this.usersOf(app, usernames);
    const now = this.clock.now();
    const change = async (tx: ImTransaction) => (added ? (await tx.groups.putOnList(group, 'allow', names, null, now), names) : tx.groups.dropFromList(group.id, 'allow', names));
    const told = (changed: string[]) => ({ op: 'allow', users: changed, added }) as const;
    await this.groups.perform(app, group, operator, told(names), change, { done: (changed) => changed.length > 0, told });
    return names;
  }

  async isAllowed(app: ImApp, kind: GroupKind, id: string, username: string): Promise<boolean> {
    const group = await this.groups.require(app, kind, id);
    const name = validUsername(username, 'username');
    return (await this.repo.onList(group.id, 'allow', [name], this.clock.now())).length > 0;
  }
}

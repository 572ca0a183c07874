/**
 * Groups and chat rooms (contract 4.2, 6.8): one model with a `kind`. The owner is always a member;
 * members must be users of the app; `maxusers` counts the owner. Each change is done for an
 * operator (a user, or the app: `null`). Every change is written with its callback jobs
 * (`group_op_event`) in one transaction (`perform`, operation-events.ts), then announced (`events`,
 * group-events.ts).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { GroupEvents, type GroupOperation, type GroupOperationEvent, type JoinWay, type Operator } from './group-events.js';
import type { IdGenerator } from './msg-id.js';
import type { OperationEvents } from './operation-events.js';
import { decodeCursor, foldSearch, pageOf, type Page } from './paging.js';
import type { GroupChanges, GroupKind, GroupSettings, ImApp, ImGroup, ImGroupListed, ImGroupsRepository, ImMember, ImTransaction } from './ports.js';
import { validUsername, type ImUsersService } from './users.js';

const DEFAULT_MAXUSERS: Record<GroupKind, number> = { group: 200, chatroom: 1000 };
const LABEL: Record<GroupKind, string> = { group: 'group', chatroom: 'chatroom' };
const LIST: Record<GroupKind, 'groups' | 'chatrooms'> = { group: 'groups', chatroom: 'chatrooms' };

/** `joined_chatgroups` without `pagesize` and `pagenum` answers this many, as Easemob does. */
export const JOINED_GROUPS_UNPAGED = 500;

export interface NewGroup {
  name: string;
  description: string;
  public: boolean;
  maxusers: number | undefined;
  owner: string;
  members: string[];
  settings?: GroupSettings;
}

/**
 * What admins, mutes and the block list change for the other services (group-roles.ts provides
 * them; without it, a group has no admins, blocks and mutes).
 */
export interface GroupRoleChecks {
  isAdmin(group: ImGroup, username: string): Promise<boolean>;
  /** Which of `usernames` are on the group's block list. */
  blocked(group: ImGroup, usernames: readonly string[]): Promise<string[]>;
  /** Throws 403 (rule `muted`) when `username` may not write to the group now. */
  assertMaySend(group: ImGroup, username: string): Promise<void>;
}

const NO_ROLES: GroupRoleChecks = { isAdmin: async () => false, blocked: async () => [], assertMaySend: async () => undefined };

/** A group's settings when the create body names none (Easemob's defaults). */
export const DEFAULT_SETTINGS: GroupSettings = { approval: false, allowInvites: false, inviteNeedConfirm: false, custom: '', avatar: '' };

export class ImGroupsService {
  constructor(
    private readonly repo: ImGroupsRepository,
    private readonly users: ImUsersService,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    /** Writes an operation with its callback jobs (operation-events.ts). */
    private readonly ops: OperationEvents,
    /** Told of every operation after its write (group-events.ts). */
    readonly events: GroupEvents = new GroupEvents(),
  ) {}

  /** Admins, block list and mutes (set once by the module, group-roles.ts). */
  roles: GroupRoleChecks = NO_ROLES;

  private eventOf(app: ImApp, group: ImGroup, operator: Operator, operation: GroupOperation, memberCount: number): GroupOperationEvent {
    const { appId, kind, id: groupId, name: groupName, owner } = group;
    return { ...operation, appId, appkey: app.appkey, kind, groupId, groupName, owner, operator, memberCount, timestamp: this.clock.now() };
  }

  /** Tells the subscribers of an operation on `group` of `app`, after its write; `memberCount` by default counted now. */
  private async tell(app: ImApp, group: ImGroup, operator: Operator, operation: GroupOperation, memberCount?: number): Promise<void> {
    await this.events.emit(this.eventOf(app, group, operator, operation, memberCount ?? (await this.repo.countMembers(group.id))));
  }

  /**
   * Runs the write of an operation (`work`) in one transaction with its `group_op_event` callback
   * jobs, written when `done(result)` says it did something; then announces it. Every group
   * operation is written this way. `memberCount`: the members after it, when its records name them
   * (creation, join); otherwise counted after the commit. `told`: the operation the subscribers are
   * told, when what it did is known only from its result (the callback records never depend on it).
   */
  async perform<T>(
    app: ImApp,
    group: ImGroup,
    operator: Operator,
    operation: GroupOperation,
    work: (tx: ImTransaction) => Promise<T>,
    options: { done?: (result: T) => boolean; memberCount?: number; told?: (result: T) => GroupOperation } = {},
  ): Promise<T> {
    const done = options.done ?? (() => true);
    const event = this.eventOf(app, group, operator, operation, options.memberCount ?? 0);
    const result = await this.ops.write([{ kind: 'group_op_event', appId: group.appId, appkey: app.appkey, timestamp: event.timestamp, operation: event }], work, done);
    if (done(result)) await this.tell(app, group, operator, options.told?.(result) ?? operation, options.memberCount);
    return result;
  }

  /** A group write that is no operation told to anyone (taking users off the block list), in a transaction of the unit of work. */
  write<T>(work: (tx: ImTransaction) => Promise<T>): Promise<T> {
    return this.ops.write([], work);
  }

  async create(app: ImApp, kind: GroupKind, input: NewGroup, operator: Operator = null): Promise<ImGroup> {
    const owner = validUsername(input.owner, 'owner');
    const members = [...new Set(input.members.map((m, i) => validUsername(m, `members[${i}]`)))].filter((m) => m !== owner);
    const maxusers = input.maxusers ?? DEFAULT_MAXUSERS[kind];
    if (members.length + 1 > maxusers) throw new AppError('illegal_argument', { detail: `members: ${members.length + 1} users exceed maxusers ${maxusers}` });
    const missing = await this.users.missing(app, [owner, ...members]);
    if (missing.length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${missing.join(', ')}` });
    const now = this.clock.now();
    const group: ImGroup = {
      id: this.ids.next(),
      appId: app.id,
      kind,
      name: input.name,
      description: input.description,
      public: input.public,
      maxusers,
      owner,
      createdAt: now,
      modifiedAt: now,
      settings: input.settings ?? DEFAULT_SETTINGS,
    };
    const { description, maxusers: max, settings } = group;
    const operation: GroupOperation = { op: 'create', members, public: group.public, maxusers: max, description, settings, createdAt: now };
    await this.perform(app, group, operator, operation, (tx) => tx.groups.createGroup(group, members), { memberCount: members.length + 1 });
    return group;
  }

  async require(app: ImApp, kind: GroupKind, id: string): Promise<ImGroup> {
    const group = await this.repo.getGroup(app.id, kind, id);
    if (!group) throw new AppError('service_resource_not_found', { resource: `Service resource ${LABEL[kind]} ${id}` });
    return group;
  }

  /** Deletes a group or room with its members; a user may delete only what they own. */
  async remove(app: ImApp, kind: GroupKind, id: string, operator: Operator = null): Promise<void> {
    const group = await this.require(app, kind, id);
    this.assertOwner(group, operator);
    const members = await this.memberNames(group);
    const deleted = await this.perform(app, group, operator, { op: 'destroy', members }, (tx) => tx.groups.deleteGroup(app.id, kind, id), { done: Boolean, memberCount: 0 });
    if (!deleted) throw new AppError('service_resource_not_found', { resource: `Service resource ${LABEL[kind]} ${id}` });
  }

  /** Throws 403 unless the operator is the app or the owner. */
  assertOwner(group: ImGroup, operator: Operator): void {
    if (operator !== null && operator !== group.owner) throw new AppError('forbidden_op', { detail: `only the owner of ${LABEL[group.kind]} ${group.id} may do this` });
  }

  /**
   * Throws 403 unless the operator may manage `group`'s members: the app, the owner, or an admin;
   * with a `target`, an admin may not act on the owner or another admin.
   */
  async assertManager(group: ImGroup, operator: Operator, target?: string): Promise<void> {
    if (operator === null || operator === group.owner) return;
    if (!(await this.roles.isAdmin(group, operator))) throw new AppError('forbidden_op', { detail: `only the owner or an admin of ${LABEL[group.kind]} ${group.id} may do this` });
    if (target !== undefined && (target === group.owner || (await this.roles.isAdmin(group, target)))) {
      throw new AppError('forbidden_op', { detail: `an admin may not do this to the owner or another admin of ${LABEL[group.kind]} ${group.id}` });
    }
  }

  /** Throws 403 (rule `blocked`, which msync answers as Easemob's blacklist refusal) when one of `usernames` is on the group's block list. */
  async assertNotBlocked(group: ImGroup, usernames: readonly string[]): Promise<void> {
    const blocked = await this.roles.blocked(group, usernames);
    if (blocked.length > 0) throw new AppError('forbidden_op', { detail: `${blocked.join(', ')} blocked from ${LABEL[group.kind]} ${group.id}`, rule: 'blocked' });
  }

  /**
   * A page of the app's groups or rooms, newest first; `cursor` from the previous page. With
   * `search`, only those whose name contains it (case-insensitively) or whose id it is.
   */
  async list(app: ImApp, kind: GroupKind, limit: number, cursor: string | undefined, search?: string): Promise<Page<ImGroupListed>> {
    const after = cursor === undefined ? undefined : decodeCursor(LIST[kind], cursor);
    const rows = await this.repo.listGroups(app.id, kind, after, limit + 1, foldSearch(search));
    return pageOf(LIST[kind], rows, limit, (g) => ({ at: g.createdAt, id: g.id }));
  }

  /** The groups a user is in, latest joined first: page `pagenum` of `pagesize`, or the first 500. */
  async joined(app: ImApp, username: string, pagesize: number | undefined, pagenum: number | undefined): Promise<Array<ImGroupListed & { role: ImMember['role'] }>> {
    const user = await this.users.require(app, username);
    const size = pagesize ?? (pagenum === undefined ? JOINED_GROUPS_UNPAGED : 10);
    return this.repo.joinedGroups(app.id, user.username, ((pagenum ?? 1) - 1) * size, size);
  }

  /**
   * Edits name, description, maxusers (not below the current members, the owner included) and,
   * for groups, `public`. Answers which fields were changed.
   */
  async update(app: ImApp, kind: GroupKind, id: string, changes: GroupChanges, operator: Operator = null): Promise<Array<keyof GroupChanges>> {
    const group = await this.require(app, kind, id);
    this.assertOwner(group, operator);
    const fields = (Object.keys(changes) as Array<keyof GroupChanges>).filter((k) => changes[k] !== undefined);
    if (fields.length === 0) throw new AppError('illegal_argument', { detail: 'nothing to change: give at least one field' });
    const tooSmall = (members: number) =>
      new AppError('illegal_argument', { detail: `maxusers: ${changes.maxusers} is below the ${members} current members of ${LABEL[kind]} ${id}` });
    if (changes.maxusers !== undefined) {
      const members = await this.repo.countMembers(group.id);
      if (members > changes.maxusers) throw tooSmall(members);
    }
    // The write checks again, in the same statement, against members added meanwhile.
    const now = this.clock.now();
    const edited = { ...group, name: changes.name ?? group.name };
    if (!(await this.perform(app, edited, operator, { op: 'update' }, (tx) => tx.groups.updateGroup(group, changes, now), { done: Boolean }))) {
      await this.require(app, kind, id);
      throw tooSmall(await this.repo.countMembers(group.id));
    }
    return fields;
  }

  async members(app: ImApp, kind: GroupKind, id: string): Promise<ImMember[]> {
    const group = await this.require(app, kind, id);
    return this.repo.members(group.id);
  }

  /** Member names of a group the caller already resolved. */
  async memberNames(group: ImGroup): Promise<string[]> {
    return (await this.repo.members(group.id)).map((m) => m.username);
  }

  isMember(group: ImGroup, username: string): Promise<boolean> {
    return this.repo.isMember(group.id, username);
  }

  /** Adds a user; true when added, false when they were already a member. */
  async addMember(app: ImApp, kind: GroupKind, id: string, username: string, operator: Operator = null, way: JoinWay = 'DIRECT'): Promise<boolean> {
    const group = await this.require(app, kind, id);
    const name = validUsername(username);
    if ((await this.users.missing(app, [name])).length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${username}` });
    if (await this.repo.isMember(group.id, name)) return false;
    await this.assertNotBlocked(group, [name]);
    const count = await this.repo.countMembers(group.id);
    if (count >= group.maxusers) throw full();
    const now = this.clock.now();
    return this.perform(app, group, operator, { op: 'join', users: [name], way }, (tx) => tx.groups.addMember(group, name, now), { done: Boolean, memberCount: count + 1 });
  }

  /** Removes several members (each as `removeMember`), after checking them all: one that cannot go removes none. */
  async removeMembers(app: ImApp, kind: GroupKind, id: string, usernames: readonly string[], operator: Operator = null): Promise<string[]> {
    const group = await this.require(app, kind, id);
    const names = [...new Set(usernames.map((n) => validUsername(n)))];
    const current = new Set(await this.memberNames(group));
    for (const name of names) {
      if (operator !== name) await this.assertManager(group, operator, name);
      if (name === group.owner) throw new AppError('forbidden_op', { detail: `the owner of ${LABEL[kind]} ${id} cannot be removed` });
      if (!current.has(name)) throw new AppError('service_resource_not_found', { resource: `Service resource member ${name} of ${LABEL[kind]} ${id}` });
    }
    for (const name of names) await this.removeMember(app, kind, id, name, operator);
    return names;
  }

  /** Removes a member: by someone else (the owner, an admin, the app) a kick; by themselves leaving. */
  async removeMember(app: ImApp, kind: GroupKind, id: string, username: string, operator: Operator = null): Promise<void> {
    const group = await this.require(app, kind, id);
    const name = validUsername(username);
    if (operator !== name) await this.assertManager(group, operator, name);
    if (name === group.owner) throw new AppError('forbidden_op', { detail: `the owner of ${LABEL[kind]} ${id} cannot be removed` });
    const operation: GroupOperation = operator === name ? { op: 'leave', user: name } : { op: 'kick', user: name };
    // One who leaves or is removed is no admin any more.
    const remove = async (tx: ImTransaction) => {
      if (!(await tx.groups.removeMember(group.id, name))) return false;
      await tx.groups.dropFromList(group.id, 'admin', [name]);
      return true;
    };
    if (!(await this.perform(app, group, operator, operation, remove, { done: Boolean }))) {
      throw new AppError('service_resource_not_found', { resource: `Service resource member ${username} of ${LABEL[kind]} ${id}` });
    }
  }
}

/** Easemob's words for a full group or room, which the SDK turns into GROUP_MEMBERS_FULL / CHATROOM_MEMBERS_FULL. */
export const full = (): AppError => new AppError('forbidden_op', { detail: 'group member list is full!' });

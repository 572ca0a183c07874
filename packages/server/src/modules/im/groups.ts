/**
 * Groups and chat rooms (contract 4.2): one model with a `kind`. The owner is always a member;
 * members must be users of the app; `maxusers` counts the owner.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { IdGenerator } from './msg-id.js';
import { decodeCursor, foldSearch, pageOf, type Page } from './paging.js';
import type { GroupChanges, GroupKind, ImApp, ImGroup, ImGroupListed, ImGroupsRepository, ImMember } from './ports.js';
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
}

export class ImGroupsService {
  constructor(
    private readonly repo: ImGroupsRepository,
    private readonly users: ImUsersService,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async create(app: ImApp, kind: GroupKind, input: NewGroup): Promise<ImGroup> {
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
    };
    await this.repo.createGroup(group, members);
    return group;
  }

  async require(app: ImApp, kind: GroupKind, id: string): Promise<ImGroup> {
    const group = await this.repo.getGroup(app.id, kind, id);
    if (!group) throw new AppError('service_resource_not_found', { resource: `Service resource ${LABEL[kind]} ${id}` });
    return group;
  }

  async remove(app: ImApp, kind: GroupKind, id: string): Promise<void> {
    if (!(await this.repo.deleteGroup(app.id, kind, id))) throw new AppError('service_resource_not_found', { resource: `Service resource ${LABEL[kind]} ${id}` });
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
  async joined(app: ImApp, username: string, pagesize: number | undefined, pagenum: number | undefined): Promise<Array<{ id: string; name: string }>> {
    const user = await this.users.require(app, username);
    const size = pagesize ?? (pagenum === undefined ? JOINED_GROUPS_UNPAGED : 10);
    return this.repo.joinedGroups(app.id, user.username, ((pagenum ?? 1) - 1) * size, size);
  }

  /**
   * Edits name, description, maxusers (not below the current members, the owner included) and,
   * for groups, `public`. Answers which fields were changed.
   */
  async update(app: ImApp, kind: GroupKind, id: string, changes: GroupChanges): Promise<Array<keyof GroupChanges>> {
    const group = await this.require(app, kind, id);
    const fields = (Object.keys(changes) as Array<keyof GroupChanges>).filter((k) => changes[k] !== undefined);
    if (fields.length === 0) throw new AppError('illegal_argument', { detail: 'nothing to change: give at least one field' });
    const tooSmall = (members: number) =>
      new AppError('illegal_argument', { detail: `maxusers: ${changes.maxusers} is below the ${members} current members of ${LABEL[kind]} ${id}` });
    if (changes.maxusers !== undefined) {
      const members = await this.repo.countMembers(group.id);
      if (members > changes.maxusers) throw tooSmall(members);
    }
    // The write checks again, in the same statement, against members added meanwhile.
    if (!(await this.repo.updateGroup(group, changes, this.clock.now()))) {
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
  async addMember(app: ImApp, kind: GroupKind, id: string, username: string): Promise<boolean> {
    const group = await this.require(app, kind, id);
    const name = validUsername(username);
    if ((await this.users.missing(app, [name])).length > 0) throw new AppError('service_resource_not_found', { resource: `Service resource user ${username}` });
    if (await this.repo.isMember(group.id, name)) return false;
    if ((await this.repo.countMembers(group.id)) >= group.maxusers) throw new AppError('forbidden_op', { detail: `${LABEL[kind]} ${id} is full (maxusers ${group.maxusers})` });
    return this.repo.addMember(group, name, this.clock.now());
  }

  async removeMember(app: ImApp, kind: GroupKind, id: string, username: string): Promise<void> {
    const group = await this.require(app, kind, id);
    const name = validUsername(username);
    if (name === group.owner) throw new AppError('forbidden_op', { detail: `the owner of ${LABEL[kind]} ${id} cannot be removed` });
    if (!(await this.repo.removeMember(group.id, name))) throw new AppError('service_resource_not_found', { resource: `Service resource member ${username} of ${LABEL[kind]} ${id}` });
  }
}

/**
 * Groups and chat rooms (contract 4.2): one model with a `kind`. The owner is always a member;
 * members must be users of the app; `maxusers` counts the owner.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { IdGenerator } from './msg-id.js';
import type { GroupKind, ImApp, ImGroup, ImGroupsRepository, ImMember } from './ports.js';
import { validUsername, type ImUsersService } from './users.js';

const DEFAULT_MAXUSERS: Record<GroupKind, number> = { group: 200, chatroom: 1000 };
const LABEL: Record<GroupKind, string> = { group: 'group', chatroom: 'chatroom' };

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
    const group: ImGroup = {
      id: this.ids.next(),
      appId: app.id,
      kind,
      name: input.name,
      description: input.description,
      public: input.public,
      maxusers,
      owner,
      createdAt: this.clock.now(),
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

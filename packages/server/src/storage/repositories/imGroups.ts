import type { Kysely, Selectable } from 'kysely';
import type { GroupChanges, ImGroup, ImGroupsRepository, ImGroupWrites } from '../../modules/im/ports.js';
import type { ListKey } from '../../modules/im/paging.js';
import type { ImGroupsTable } from '../tables/im.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { groupInviteWrites } from './imGroupInvites.js';
import { groupListWrites } from './imGroupRoles.js';
import { containsFolded } from './text-search.js';

const toGroup = (row: Selectable<ImGroupsTable>): ImGroup => ({
  id: row.id,
  appId: row.app_id,
  kind: row.kind,
  name: row.name,
  description: row.description,
  public: row.public === 1,
  maxusers: row.maxusers,
  owner: row.owner,
  createdAt: row.created_at,
  modifiedAt: row.modified_at,
  settings: {
    approval: row.approval === 1,
    allowInvites: row.allow_invites === 1,
    inviteNeedConfirm: row.invite_need_confirm === 1,
    custom: row.custom,
    avatar: row.avatar,
  },
});

const flag = (value: boolean | undefined) => (value === undefined ? undefined : value ? 1 : 0);

/** The columns an edit sets. */
const changedColumns = (changes: GroupChanges, now: number) => ({
  ...(changes.name === undefined ? {} : { name: changes.name }),
  ...(changes.description === undefined ? {} : { description: changes.description }),
  ...(changes.maxusers === undefined ? {} : { maxusers: changes.maxusers }),
  ...(changes.public === undefined ? {} : { public: flag(changes.public) }),
  ...(changes.approval === undefined ? {} : { approval: flag(changes.approval) }),
  ...(changes.allowInvites === undefined ? {} : { allow_invites: flag(changes.allowInvites) }),
  ...(changes.custom === undefined ? {} : { custom: changes.custom }),
  ...(changes.avatar === undefined ? {} : { avatar: changes.avatar }),
  modified_at: now,
});

export function kyselyImGroupsRepository(db: Kysely<Database>, engine: Engine): ImGroupsRepository {
  return {
    ...groupAdministration(db, engine),
    ...groupMembership(db),
    async getGroup(appId, kind, id) {
      const row = await db.selectFrom('im_groups').selectAll().where('id', '=', id).where('app_id', '=', appId).where('kind', '=', kind).executeTakeFirst();
      return row && toGroup(row);
    },
    async members(groupId) {
      const rows = await db.selectFrom('im_members').select(['username', 'role']).where('group_id', '=', groupId).orderBy('joined_at').orderBy('username').execute();
      return rows;
    },
    async isMember(groupId, username) {
      const row = await db.selectFrom('im_members').select('username').where('group_id', '=', groupId).where('username', '=', username).executeTakeFirst();
      return row !== undefined;
    },
    async countMembers(groupId) {
      const row = await db.selectFrom('im_members').select((eb) => eb.fn.countAll().as('n')).where('group_id', '=', groupId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

/**
 * The writes of group operations on `trx`, a transaction (the operation's, with its callback jobs:
 * modules/im/operation-events.ts): members, requests, edits, lists and notes, invitations. No statement here may fail on a conflict it
 * expects, since on PostgreSQL a failed statement aborts the whole transaction.
 */
export function kyselyImGroupWrites(trx: Kysely<Database>): ImGroupWrites {
  const addRow = (group: ImGroup, username: string, now: number) =>
    trx
      .insertInto('im_members')
      .values({ group_id: group.id, app_id: group.appId, username, role: 'member', joined_at: now })
      .onConflict((oc) => oc.columns(['group_id', 'username']).doNothing())
      .executeTakeFirst();
  return {
    async createGroup(group, members) {
      await trx
        .insertInto('im_groups')
        .values({
          id: group.id,
          app_id: group.appId,
          kind: group.kind,
          name: group.name,
          description: group.description,
          public: group.public ? 1 : 0,
          maxusers: group.maxusers,
          owner: group.owner,
          created_at: group.createdAt,
          modified_at: group.modifiedAt,
          approval: group.settings.approval ? 1 : 0,
          allow_invites: group.settings.allowInvites ? 1 : 0,
          invite_need_confirm: group.settings.inviteNeedConfirm ? 1 : 0,
          custom: group.settings.custom,
          avatar: group.settings.avatar,
        })
        .execute();
      const rows = [
        { group_id: group.id, app_id: group.appId, username: group.owner, role: 'owner' as const, joined_at: group.createdAt },
        ...members
          .filter((m) => m !== group.owner)
          .map((username) => ({ group_id: group.id, app_id: group.appId, username, role: 'member' as const, joined_at: group.createdAt })),
      ];
      await trx.insertInto('im_members').values(rows).execute();
    },
    async deleteGroup(appId, kind, id) {
      const result = await trx.deleteFrom('im_groups').where('id', '=', id).where('app_id', '=', appId).where('kind', '=', kind).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async addMember(group, username, now) {
      return Number((await addRow(group, username, now)).numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async removeMember(groupId, username) {
      const result = await trx.deleteFrom('im_members').where('group_id', '=', groupId).where('username', '=', username).where('role', '=', 'member').executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async changeOwner(group, newOwner, now) {
      const promoted = await trx.updateTable('im_members').set({ role: 'owner' }).where('group_id', '=', group.id).where('username', '=', newOwner).where('role', '=', 'member').executeTakeFirst();
      if (Number(promoted.numUpdatedRows) === 0) return false;
      // Another change of owner came first: false, and the caller rolls the promotion back with the transaction.
      const moved = await trx.updateTable('im_groups').set({ owner: newOwner, modified_at: now }).where('id', '=', group.id).where('owner', '=', group.owner).executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      await trx.updateTable('im_members').set({ role: 'member' }).where('group_id', '=', group.id).where('username', '=', group.owner).execute();
      return true;
    },
    async acceptJoinRequest(group, username, now) {
      const dropped = await trx.deleteFrom('im_group_requests').where('group_id', '=', group.id).where('username', '=', username).executeTakeFirst();
      if (Number(dropped.numDeletedRows) === 0) return false;
      await addRow(group, username, now);
      return true;
    },
    ...groupRequestAndEditWrites(trx),
    ...groupListWrites(trx),
    ...groupInviteWrites(trx),
  };
}

/** Requests to join and edits, on the operation's transaction. */
function groupRequestAndEditWrites(trx: Kysely<Database>): Pick<ImGroupWrites, 'requestJoin' | 'dropJoinRequest' | 'updateGroup'> {
  return {
    async requestJoin(group, username, reason, now) {
      await trx
        .insertInto('im_group_requests')
        .values({ group_id: group.id, app_id: group.appId, username, reason, created_at: now })
        .onConflict((oc) => oc.columns(['group_id', 'username']).doUpdateSet({ reason, created_at: now }))
        .execute();
    },
    async dropJoinRequest(groupId, username) {
      const result = await trx.deleteFrom('im_group_requests').where('group_id', '=', groupId).where('username', '=', username).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async updateGroup(group, changes, now) {
      let query = trx.updateTable('im_groups').set(changedColumns(changes, now)).where('id', '=', group.id).where('app_id', '=', group.appId).where('kind', '=', group.kind);
      const maxusers = changes.maxusers;
      if (maxusers !== undefined) {
        query = query.where((eb) => eb(eb.selectFrom('im_members').select((c) => c.fn.countAll().as('n')).where('group_id', '=', group.id), '<=', maxusers));
      }
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

/** Member pages. */
function groupMembership(db: Kysely<Database>): Pick<ImGroupsRepository, 'membersPage'> {
  return {
    async membersPage(groupId, offset, limit) {
      return db
        .selectFrom('im_members')
        .select(['username', 'role'])
        .where('group_id', '=', groupId)
        .orderBy((eb) => eb.case().when('role', '=', 'owner').then(0).else(1).end())
        .orderBy('joined_at')
        .orderBy('username')
        .limit(limit)
        .offset(offset)
        .execute();
    },
  };
}


/** The administration queries: lists. */
function groupAdministration(db: Kysely<Database>, engine: Engine): Pick<ImGroupsRepository, 'listGroups' | 'listPublicGroups' | 'joinedGroups'> {
  const listed = (appId: string, kind: 'group' | 'chatroom', after: ListKey | undefined) => {
    let query = db
      .selectFrom('im_groups as g')
      .selectAll('g')
      .select((eb) => eb.selectFrom('im_members as m').select((c) => c.fn.countAll().as('n')).whereRef('m.group_id', '=', 'g.id').as('members'))
      .where('g.app_id', '=', appId)
      .where('g.kind', '=', kind);
    if (after) {
      query = query.where((eb) => eb.or([eb('g.created_at', '<', after.at), eb.and([eb('g.created_at', '=', after.at), eb('g.id', '<', after.id)])]));
    }
    return query;
  };
  return {
    async listGroups(appId, kind, after, limit, search) {
      let query = listed(appId, kind, after);
      if (search !== undefined) query = query.where((eb) => eb.or([containsFolded(engine, 'g.name', search), eb('g.id', '=', search)]));
      const rows = await query.orderBy('g.created_at', 'desc').orderBy('g.id', 'desc').limit(limit).execute();
      return rows.map((row) => ({ ...toGroup(row), members: Number(row.members ?? 0) }));
    },
    async listPublicGroups(appId, after, limit) {
      const rows = await listed(appId, 'group', after).where('g.public', '=', 1).orderBy('g.created_at', 'desc').orderBy('g.id', 'desc').limit(limit).execute();
      return rows.map((row) => ({ ...toGroup(row), members: Number(row.members ?? 0) }));
    },
    async joinedGroups(appId, username, offset, limit) {
      const rows = await db
        .selectFrom('im_members as me')
        .innerJoin('im_groups as g', 'g.id', 'me.group_id')
        .selectAll('g')
        .select('me.role as role')
        .select((eb) => eb.selectFrom('im_members as m').select((c) => c.fn.countAll().as('n')).whereRef('m.group_id', '=', 'g.id').as('members'))
        .where('me.app_id', '=', appId)
        .where('me.username', '=', username)
        .where('g.kind', '=', 'group')
        .orderBy('me.joined_at', 'desc')
        .orderBy('g.id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({ ...toGroup(row), members: Number(row.members ?? 0), role: row.role }));
    },
  };
}

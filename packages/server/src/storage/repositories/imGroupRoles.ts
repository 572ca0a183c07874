import { sql, type Kysely } from 'kysely';
import type { ImGroupRolesRepository } from '../../modules/im/group-roles.js';
import type { GroupList, ImGroupWrites } from '../../modules/im/ports.js';
import type { Database } from '../schema.js';

/** A mute still running at `now` (or never ending); the other lists have no end. */
const running = (now: number) => sql<boolean>`(expires_at IS NULL OR expires_at > ${now})`;

/** Admins, mutes, block and allow lists (im_group_lists) and announcements (im_group_notes), on both engines: the reads. */
export function kyselyImGroupRolesRepository(db: Kysely<Database>): ImGroupRolesRepository {
  const listRows = (groupId: string, list: GroupList, now: number) =>
    db.selectFrom('im_group_lists').where('group_id', '=', groupId).where('list', '=', list).where(running(now));
  return {
    ...groupNotes(db),
    async list(groupId, list, now) {
      const rows = await listRows(groupId, list, now).select(['username', 'expires_at']).orderBy('created_at').orderBy('username').execute();
      return rows.map((r) => ({ username: r.username, expiresAt: r.expires_at === null ? null : Number(r.expires_at) }));
    },
    async onList(groupId, list, usernames, now) {
      if (usernames.length === 0) return [];
      const rows = await listRows(groupId, list, now).where('username', 'in', [...usernames]).select('username').execute();
      return rows.map((r) => r.username);
    },
    async speakState(group, username, now) {
      // One round trip: membership, a running mute, exemption (admin or allow list) and the mute of all.
      const row = await db
        .selectNoFrom((eb) => [
          eb.exists(eb.selectFrom('im_members').select('username').where('group_id', '=', group.id).where('username', '=', username)).as('member'),
          eb.exists(listRows(group.id, 'mute', now).select('username').where('username', '=', username)).as('muted'),
          eb
            .exists(
              eb
                .selectFrom('im_group_lists')
                .select('username')
                .where('group_id', '=', group.id)
                .where('list', 'in', ['admin', 'allow'])
                .where('username', '=', username),
            )
            .as('exempt'),
          eb.exists(eb.selectFrom('im_group_notes').select('group_id').where('group_id', '=', group.id).where('all_muted', '=', 1)).as('all_muted'),
        ])
        .executeTakeFirstOrThrow();
      const yes = (v: unknown) => v === true || Number(v) === 1;
      return { member: yes(row.member), muted: yes(row.muted), exempt: yes(row.exempt), allMuted: yes(row.all_muted) };
    },
  };
}

/** The announcement and the mute of all (im_group_notes): a row once either is set. */
function groupNotes(db: Kysely<Database>): Pick<ImGroupRolesRepository, 'notes'> {
  return {
    async notes(groupId) {
      const row = await db.selectFrom('im_group_notes').select(['announcement', 'all_muted']).where('group_id', '=', groupId).executeTakeFirst();
      return { announcement: row?.announcement ?? '', allMuted: row?.all_muted === 1 };
    },
  };
}

/**
 * The writes of the lists and the notes on `trx`, the transaction of the group operation with its
 * callback jobs (imGroups.ts `kyselyImGroupWrites`).
 */
export function groupListWrites(trx: Kysely<Database>): Pick<ImGroupWrites, 'putOnList' | 'dropFromList' | 'block' | 'setNotes'> {
  return {
    async putOnList(group, list, usernames, expiresAt, now) {
      if (usernames.length === 0) return;
      await trx
        .insertInto('im_group_lists')
        .values(usernames.map((username) => ({ group_id: group.id, list, app_id: group.appId, username, expires_at: expiresAt, created_at: now })))
        .onConflict((oc) => oc.columns(['group_id', 'list', 'username']).doUpdateSet({ expires_at: expiresAt }))
        .execute();
    },
    async dropFromList(groupId, list, usernames) {
      if (usernames.length === 0) return [];
      const rows = await trx.deleteFrom('im_group_lists').where('group_id', '=', groupId).where('list', '=', list).where('username', 'in', [...usernames]).returning('username').execute();
      return rows.map((r) => r.username);
    },
    async block(group, usernames, now) {
      if (usernames.length === 0) return [];
      await trx
        .insertInto('im_group_lists')
        .values(usernames.map((username) => ({ group_id: group.id, list: 'block' as const, app_id: group.appId, username, expires_at: null, created_at: now })))
        .onConflict((oc) => oc.columns(['group_id', 'list', 'username']).doNothing())
        .execute();
      await trx.deleteFrom('im_group_lists').where('group_id', '=', group.id).where('list', '=', 'admin').where('username', 'in', [...usernames]).execute();
      const removed = await trx
        .deleteFrom('im_members')
        .where('group_id', '=', group.id)
        .where('role', '=', 'member')
        .where('username', 'in', [...usernames])
        .returning('username')
        .execute();
      return removed.map((r) => r.username);
    },
    async setNotes(groupId, changes, now) {
      const set = {
        ...(changes.announcement === undefined ? {} : { announcement: changes.announcement }),
        ...(changes.allMuted === undefined ? {} : { all_muted: changes.allMuted ? 1 : 0 }),
        modified_at: now,
      };
      await trx
        .insertInto('im_group_notes')
        .values({ group_id: groupId, ...set })
        .onConflict((oc) => oc.column('group_id').doUpdateSet(set))
        .execute();
    },
  };
}

/** Invitations held for the invitee's confirmation (`im_group_invites`): the writes of a transaction (imGroups.ts `kyselyImGroupWrites`). */
import type { Kysely } from 'kysely';
import type { ImGroupWrites } from '../../modules/im/ports.js';
import type { Database } from '../schema.js';

export function groupInviteWrites(trx: Kysely<Database>): Pick<ImGroupWrites, 'holdInvites' | 'dropInvite' | 'acceptInvite'> {
  const take = async (groupId: string, username: string) => {
    const row = await trx.deleteFrom('im_group_invites').where('group_id', '=', groupId).where('username', '=', username).returning(['inviter', 'reason']).executeTakeFirst();
    return row ? { inviter: row.inviter, reason: row.reason } : undefined;
  };
  return {
    async holdInvites(group, usernames, inviter, reason, now) {
      if (usernames.length === 0) return;
      await trx
        .insertInto('im_group_invites')
        .values(usernames.map((username) => ({ group_id: group.id, app_id: group.appId, username, inviter, reason, created_at: now })))
        .onConflict((oc) => oc.columns(['group_id', 'username']).doUpdateSet((eb) => ({ inviter: eb.ref('excluded.inviter'), reason: eb.ref('excluded.reason'), created_at: eb.ref('excluded.created_at') })))
        .execute();
    },
    dropInvite: take,
    async acceptInvite(group, username, now) {
      const invite = await take(group.id, username);
      if (!invite) return undefined;
      await trx
        .insertInto('im_members')
        .values({ group_id: group.id, app_id: group.appId, username, role: 'member', joined_at: now })
        .onConflict((oc) => oc.columns(['group_id', 'username']).doNothing())
        .execute();
      return invite;
    },
  };
}

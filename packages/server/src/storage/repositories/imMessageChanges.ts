/**
 * What happens to a message after it was sent: its group readers (read receipts) and its recall.
 * Reads over the pool; the writes run in the unit of work's transaction.
 */
import type { Kysely } from 'kysely';
import type { ImMessagesRepository, ImMessageWrites } from '../../modules/im/ports.js';
import { limitParam } from '../precompiled.js';
import { MESSAGE_COLUMNS, storedMessageOf } from './im-message-row.js';
import type { Database } from '../schema.js';

type Reads = Pick<ImMessagesRepository, 'findMessage' | 'groupReaders' | 'countGroupReaders' | 'readEvents' | 'countEvents'>;
type Writes = Pick<ImMessageWrites, 'addGroupRead' | 'removeMessage' | 'storeEvents' | 'deleteEvents' | 'deleteEventsBefore' | 'editMessage' | 'deleteMessagesBefore'>;

export function messageChangeReads(db: Kysely<Database>): Reads {
  return {
    async findMessage(appId, msgId) {
      const row = await db.selectFrom('im_messages').select(MESSAGE_COLUMNS).where('app_id', '=', appId).where('msg_id', '=', Number(msgId)).executeTakeFirst();
      return row ? storedMessageOf(row) : undefined;
    },
    async groupReaders(appId, msgId, after, limit) {
      let query = db.selectFrom('im_group_reads').select(['username', 'read_at']).where('app_id', '=', appId).where('msg_id', '=', Number(msgId));
      if (after !== undefined) query = query.where('username', '>', after);
      const rows = await query.orderBy('username').limit(limitParam(limit)).execute();
      return rows.map((r) => ({ username: r.username, readAt: Number(r.read_at) }));
    },
    async countEvents(appId, username) {
      const row = await db
        .selectFrom('im_pending_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async readEvents(appId, username, since, afterId, limit, resource) {
      let query = db
        .selectFrom('im_pending_events')
        .select(['id', 'frame'])
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .where('created_at', '>=', since)
        .where('id', '>', Number(afterId));
      if (resource !== undefined) query = query.where((eb) => eb.or([eb('sent_from', 'is', null), eb('sent_from', '<>', resource)]));
      const rows = await query
        .orderBy('id')
        .limit(limitParam(limit))
        .execute();
      return rows.map((r) => ({ id: String(r.id), frame: r.frame }));
    },
    async countGroupReaders(appId, msgId) {
      const row = await db
        .selectFrom('im_group_reads')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('app_id', '=', appId)
        .where('msg_id', '=', Number(msgId))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export function messageChangeWrites(trx: Kysely<Database>): Writes {
  return {
    async addGroupRead(ref, username, now) {
      await trx
        .insertInto('im_group_reads')
        .values({ app_id: ref.appId, msg_id: Number(ref.msgId), username, read_at: now })
        .onConflict((oc) => oc.columns(['app_id', 'msg_id', 'username']).doNothing())
        .execute();
    },
    async removeMessage(ref) {
      const msgId = Number(ref.msgId);
      const undelivered = await trx
        .deleteFrom('im_offline')
        .where('app_id', '=', ref.appId)
        .where('msg_id', '=', msgId)
        .returning(['username', 'status'])
        .execute();
      await trx.deleteFrom('im_group_reads').where('app_id', '=', ref.appId).where('msg_id', '=', msgId).execute();
      const deleted = await trx.deleteFrom('im_messages').where('app_id', '=', ref.appId).where('msg_id', '=', msgId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return undefined;
      return undelivered.filter((r) => r.status === 'undelivered').map((r) => r.username);
    },
    async editMessage(ref, payload, maxEdits) {
      const updated = await trx
        .updateTable('im_messages')
        .set((eb) => ({ payload: JSON.stringify(payload), edits: eb('edits', '+', 1) }))
        .where('app_id', '=', ref.appId)
        .where('msg_id', '=', Number(ref.msgId))
        .where('edits', '<', maxEdits)
        .returning('edits')
        .executeTakeFirst();
      return updated ? Number(updated.edits) : undefined;
    },
    async storeEvents(rows, now) {
      if (rows.length === 0) return;
      await trx
        .insertInto('im_pending_events')
        .values(rows.map((r) => ({ app_id: r.appId, username: r.username, id: Number(r.id), frame: r.frame, created_at: now, sent_from: r.sentFrom ?? null })))
        .onConflict((oc) => oc.columns(['app_id', 'username', 'id']).doNothing())
        .execute();
    },
    async deleteEvents(appId, username, ids) {
      if (ids.length === 0) return;
      await trx.deleteFrom('im_pending_events').where('app_id', '=', appId).where('username', '=', username).where('id', 'in', ids.map(Number)).execute();
    },
    async deleteEventsBefore(appId, username, cutoff) {
      await trx.deleteFrom('im_pending_events').where('app_id', '=', appId).where('username', '=', username).where('created_at', '<', cutoff).execute();
    },
    async deleteMessagesBefore(appId, beforeMsgId, limit) {
      // The batch's last id bounds one range delete of the primary key; the offline rows, readers
      // and pending fan-out go with their messages (ON DELETE CASCADE).
      const oldest = await trx
        .selectFrom('im_messages')
        .select('msg_id')
        .where('app_id', '=', appId)
        .where('msg_id', '<', Number(beforeMsgId))
        .orderBy('msg_id')
        .limit(limitParam(limit))
        .execute();
      const last = oldest.at(-1);
      if (!last) return 0;
      const deleted = await trx.deleteFrom('im_messages').where('app_id', '=', appId).where('msg_id', '<=', Number(last.msg_id)).executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },
  };
}

/**
 * What happens to a message after it was sent: its group readers (read receipts) and its recall.
 * Reads over the pool; the writes run in the unit of work's transaction.
 */
import type { Kysely } from 'kysely';
import type { ImMessagesRepository, ImMessageWrites } from '../../modules/im/ports.js';
import { limitParam } from '../precompiled.js';
import { everyOtherDeviceTook, EVENT_TAKES, takenBy } from './im-devices.js';
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
      // The device that made a user's own recall or edit never takes it, and a device takes it once.
      if (resource !== undefined) query = query.where((eb) => eb.or([eb('sent_from', 'is', null), eb.and([eb('sent_from', '<>', resource), eb.not(takenBy(EVENT_TAKES, 'im_pending_events', resource))])]));
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

/**
 * The user's own kept recalls and edits among `ids` taken by `device`: recorded as taken, and
 * forgotten once no other device of the user seen since `seenSince` (the one that made them aside)
 * is left to take them.
 */
async function takeOwnEvents(trx: Kysely<Database>, appId: string, username: string, ids: number[], device: { resource: string; seenSince: number }): Promise<void> {
  const own = await trx.selectFrom('im_pending_events').select('id').where('app_id', '=', appId).where('username', '=', username).where('sent_from', '<>', device.resource).where('id', 'in', ids).execute();
  if (own.length === 0) return;
  const ownIds = own.map((r) => Number(r.id));
  await trx
    .insertInto('im_pending_event_takes')
    .values(ownIds.map((id) => ({ app_id: appId, username, id, resource: device.resource })))
    .onConflict((oc) => oc.columns(['app_id', 'username', 'id', 'resource']).doNothing())
    .execute();
  await trx
    .deleteFrom('im_pending_events')
    .where('app_id', '=', appId)
    .where('username', '=', username)
    .where('id', 'in', ownIds)
    .where(everyOtherDeviceTook(EVENT_TAKES, 'im_pending_events', device.seenSince))
    .execute();
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
      // A user's own copy one of their devices took was had, though still kept for another device.
      const taken = await trx.selectFrom('im_offline_takes').select('username').where('app_id', '=', ref.appId).where('msg_id', '=', msgId).execute();
      const had = new Set(taken.map((r) => r.username));
      const undelivered = await trx
        .deleteFrom('im_offline')
        .where('app_id', '=', ref.appId)
        .where('msg_id', '=', msgId)
        .returning(['username', 'status'])
        .execute();
      await trx.deleteFrom('im_group_reads').where('app_id', '=', ref.appId).where('msg_id', '=', msgId).execute();
      const deleted = await trx.deleteFrom('im_messages').where('app_id', '=', ref.appId).where('msg_id', '=', msgId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return undefined;
      return undelivered.filter((r) => r.status === 'undelivered' && !had.has(r.username)).map((r) => r.username);
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
    async deleteEvents(appId, username, ids, device) {
      if (ids.length === 0) return;
      const numeric = ids.map(Number);
      const events = () => trx.deleteFrom('im_pending_events').where('app_id', '=', appId).where('username', '=', username);
      // A device's own kept changes are taken one device at a time (takeOwnEvents); the rest at once.
      const deleted = await (device ? events().where('sent_from', 'is', null) : events()).where('id', 'in', numeric).executeTakeFirst();
      if (device && Number(deleted.numDeletedRows) < numeric.length) await takeOwnEvents(trx, appId, username, numeric, device);
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

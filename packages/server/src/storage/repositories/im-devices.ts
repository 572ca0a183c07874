/**
 * Multi-device storage (modules/im/devices.ts): the devices each user logged in with, the copy of a
 * user's own message kept for their other devices, written in the send's transaction only when
 * they have one, and the conditions on the devices' takes of such copies and of kept own recalls
 * and edits (migration 139), shared by the offline store (imMessages.ts) and the kept events
 * (imMessageChanges.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ImMessagesRepository, ImMessageWrites, StoredMessage } from '../../modules/im/ports.js';
import type { Database } from '../schema.js';
import { copies, precompiledSized } from '../precompiled.js';

/** Ids per statement: well under both engines' bound-parameter limits. */
const CHUNK = 500;

/**
 * On the send's path, compiled once per size (per storage: the engine's placeholders): [status, sent_from, appId, ...msgIds, appId,
 * username, sent_from, seenSince]. The messages' rows as the sender's own copies, if the sender has
 * a device other than the sending one seen since then.
 */
export function deviceQueries() {
  return {
    storeOwn: precompiledSized((db, n) =>
  db
    .insertInto('im_offline')
    .columns(['app_id', 'username', 'msg_id', 'status', 'created_at', 'sent_from'])
    .expression((eb) =>
      eb
        .selectFrom('im_messages as m')
        .select(['m.app_id', 'm.sender', 'm.msg_id', eb.val('undelivered').as('status'), 'm.timestamp', eb.val('').as('sent_from')])
        .where('m.app_id', '=', '')
        .where('m.msg_id', 'in', copies(n, 0))
        .where(({ exists, selectFrom }) =>
          exists(selectFrom('im_devices as d').select('d.resource').where('d.app_id', '=', '').where('d.username', '=', '').where('d.resource', '<>', '').where('d.seen_at', '>=', 0)),
        ),
    )
    .onConflict((oc) => oc.columns(['app_id', 'username', 'msg_id']).doNothing()),
    ),
  };
}

export function deviceReads(db: Kysely<Database>): Pick<ImMessagesRepository, 'hasOtherDevice'> {
  return {
    async hasOtherDevice(appId, username, resource, since) {
      const row = await db
        .selectFrom('im_devices')
        .select('resource')
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .where('resource', '<>', resource)
        .where('seen_at', '>=', since)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

export function deviceWrites(trx: Kysely<Database>, q: ReturnType<typeof deviceQueries>): Pick<ImMessageWrites, 'storeOwnCopies' | 'recordDevice'> {
  return {
    async storeOwnCopies(messages, seenSince) {
      // One statement per sender and sending device: the copies, if the sender has another device.
      const groups = new Map<string, StoredMessage[]>();
      for (const m of messages) {
        if (m.ownCopy === undefined) continue;
        const key = `${m.appId}\u0000${m.from}\u0000${m.ownCopy}`;
        const list = groups.get(key);
        if (list) list.push(m);
        else groups.set(key, [m]);
      }
      for (const list of groups.values()) {
        const { appId, from, ownCopy = '' } = list[0]!;
        for (let i = 0; i < list.length; i += CHUNK) {
          const ids = list.slice(i, i + CHUNK).map((m) => Number(m.msgId));
          await q.storeOwn(trx, ids.length, ['undelivered', ownCopy, appId, ...ids, appId, from, ownCopy, seenSince]);
        }
      }
    },
    async recordDevice(appId, username, resource, now, staleBefore) {
      await trx.deleteFrom('im_devices').where('app_id', '=', appId).where('username', '=', username).where('seen_at', '<', staleBefore).execute();
      await trx
        .insertInto('im_devices')
        .values({ app_id: appId, username, resource, seen_at: now })
        .onConflict((oc) => oc.columns(['app_id', 'username', 'resource']).doUpdateSet({ seen_at: now }))
        .execute();
    },
  };
}

/** What a device may take of a user's own: a copy of a message they sent (`im_offline`), or a kept recall or edit (`im_pending_events`). */
type Takes = { table: 'im_offline_takes'; key: 'msg_id' } | { table: 'im_pending_event_takes'; key: 'id' };
export const OFFLINE_TAKES: Takes = { table: 'im_offline_takes', key: 'msg_id' };
export const EVENT_TAKES: Takes = { table: 'im_pending_event_takes', key: 'id' };

/** Whether `resource` took the row aliased `row` (an `im_offline` or `im_pending_events` row). */
export function takenBy(takes: Takes, row: string, resource: string): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM ${sql.table(takes.table)} t WHERE t.app_id = ${sql.ref(`${row}.app_id`)} AND t.username = ${sql.ref(`${row}.username`)} AND ${sql.ref(`t.${takes.key}`)} = ${sql.ref(`${row}.${takes.key}`)} AND t.resource = ${resource})`;
}

/**
 * Whether every device of the user of the row aliased `row` seen since `seenSince`, the one that
 * made it (`sent_from`) aside, took it.
 */
export function everyOtherDeviceTook(takes: Takes, row: string, seenSince: number): RawBuilder<boolean> {
  return sql<boolean>`NOT EXISTS (SELECT 1 FROM im_devices d WHERE d.app_id = ${sql.ref(`${row}.app_id`)} AND d.username = ${sql.ref(`${row}.username`)} AND d.resource <> ${sql.ref(`${row}.sent_from`)} AND d.seen_at >= ${seenSince} AND NOT EXISTS (SELECT 1 FROM ${sql.table(takes.table)} t WHERE t.app_id = d.app_id AND t.username = d.username AND ${sql.ref(`t.${takes.key}`)} = ${sql.ref(`${row}.${takes.key}`)} AND t.resource = d.resource))`;
}

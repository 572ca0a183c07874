/**
 * Multi-device storage (modules/im/devices.ts): the devices each user logged in with, and the copy of
 * a user's own message kept for their other devices, written in the send's transaction only when
 * they have one.
 */
import type { Kysely } from 'kysely';
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

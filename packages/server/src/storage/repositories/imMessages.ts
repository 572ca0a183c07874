import { type Kysely, type Selectable } from 'kysely';
import { refKey, type ImMessagesRepository, type ImMessageWrites, type MessageRef, type StoredMessage } from '../../modules/im/ports.js';
import type { ImMessagesTable } from '../tables/im.js';
import { copies, limitParam, precompiledSized } from '../precompiled.js';
import { messageChangeReads, messageChangeWrites } from './imMessageChanges.js';
import { deviceQueries, deviceReads, deviceWrites, everyOtherDeviceTook, OFFLINE_TAKES, takenBy } from './im-devices.js';
import type { Database } from '../schema.js';

const toMessage = (row: Selectable<ImMessagesTable>): StoredMessage => ({
  appId: row.app_id,
  msgId: String(row.msg_id),
  from: row.sender,
  to: row.receiver,
  chatType: row.chat_type,
  source: row.source,
  timestamp: row.timestamp,
  payload: JSON.parse(row.payload) as StoredMessage['payload'],
  ...(row.live_by !== null ? { live: { by: row.live_by, to: JSON.parse(row.live ?? '[]') as string[] } } : {}),
  ...(row.online_only ? { onlineOnly: true } : {}),
});

/** Rows or ids per statement: well under both engines' bound-parameter limits. */
const CHUNK = 500;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function byApp(refs: MessageRef[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const ref of refs) {
    let ids = map.get(ref.appId);
    if (!ids) map.set(ref.appId, (ids = []));
    ids.push(Number(ref.msgId));
  }
  return map;
}

/**
 * The statements of every message's way (accept, fan-out, offline store), compiled once per
 * batch size: building them with Kysely on each call cost more than running them.
 */
function hotQueries() {
  const row = { app_id: '', msg_id: 0, sender: '', receiver: '', chat_type: 'chat' as const, source: 'rest' as const, timestamp: 0, payload: '', live: null, live_by: null, online_only: 0 };
  const pendingRow = { app_id: '', msg_id: 0, receiver: '', chat_type: 'chat' as const };
  const offline = { app_id: '', username: '', msg_id: 0, status: 'undelivered' as const, created_at: 0, delivered_at: null };
  return {
    // per row: [app_id, msg_id, sender, receiver, chat_type, source, timestamp, payload, live, live_by, online_only]
    insert: precompiledSized((db, n) => db.insertInto('im_messages').values(copies(n, row))),
    // per row: [app_id, msg_id, receiver, chat_type]
    insertPending: precompiledSized((db, n) => db.insertInto('im_pending_fanout').values(copies(n, pendingRow))),
    // [appId, ...msgIds]
    pending: precompiledSized((db, n) =>
      db
        .selectFrom('im_pending_fanout as p')
        .innerJoin('im_messages as m', (join) => join.onRef('m.app_id', '=', 'p.app_id').onRef('m.msg_id', '=', 'p.msg_id'))
        .selectAll('m')
        .where('p.app_id', '=', '')
        .where('p.msg_id', 'in', copies(n, 0))
        .orderBy('p.msg_id'),
    ),
    // [appId, ...msgIds]: the rows this statement deleted are the messages it settled.
    markDone: precompiledSized((db, n) => db.deleteFrom('im_pending_fanout').where('app_id', '=', '').where('msg_id', 'in', copies(n, 0)).returning('msg_id')),
    // per row: [app_id, username, msg_id, status, created_at, delivered_at]
    storeOffline: precompiledSized((db, n) =>
      db
        .insertInto('im_offline')
        .values(copies(n, offline))
        .onConflict((oc) => oc.columns(['app_id', 'username', 'msg_id']).doNothing()),
    ),
  };
}

/** The IM messages repository, and the writes of a transaction over the same compiled statements. */
export function kyselyImMessages(db: Kysely<Database>): { repository: ImMessagesRepository; writes: (trx: Kysely<Database>) => ImMessageWrites } {
  const q = hotQueries();
  const devices = deviceQueries();
  return {
    repository: { ...fanoutReads(db, q), ...offlineReads(db), ...pendingReads(db), ...messageChangeReads(db), ...deviceReads(db) },
    writes: (trx) => ({ ...messageWrites(trx, q), ...messageChangeWrites(trx), ...deviceWrites(trx, devices) }),
  };
}

function fanoutReads(db: Kysely<Database>, q: ReturnType<typeof hotQueries>) {
  return {
    async pendingFanout(refs) {
      const out: StoredMessage[] = [];
      for (const [appId, ids] of byApp(refs)) {
        for (const chunk of chunks(ids, CHUNK)) {
          const rows = (await q.pending(db, chunk.length, [appId, ...chunk])) as Array<Selectable<ImMessagesTable>>;
          out.push(...rows.map(toMessage));
        }
      }
      return out;
    },
  } satisfies Pick<ImMessagesRepository, 'pendingFanout'>;
}

/** Accepting and fanning out, in the transaction `trx`: the precompiled statements, in chunks. */
function messageWrites(trx: Kysely<Database>, q: ReturnType<typeof hotQueries>): Omit<ImMessageWrites, 'storeOwnCopies' | 'recordDevice' | 'addGroupRead' | 'removeMessage' | 'storeEvents' | 'deleteEvents' | 'deleteEventsBefore' | 'editMessage' | 'deleteMessagesBefore'> {
  return {
    async insertMessages(messages) {
      for (const chunk of chunks(messages, CHUNK)) {
        const params: unknown[] = [];
        const pending: unknown[] = [];
        for (const m of chunk) {
          const live = m.live ? [JSON.stringify(m.live.to), m.live.by] : [null, null];
          params.push(m.appId, Number(m.msgId), m.from, m.to, m.chatType, m.source, m.timestamp, JSON.stringify(m.payload), ...live, m.onlineOnly ? 1 : 0);
          pending.push(m.appId, Number(m.msgId), m.to, m.chatType);
        }
        await q.insert(trx, chunk.length, params);
        // Its fan-out is pending until a fan-out deletes the row (markFanoutDone).
        await q.insertPending(trx, chunk.length, pending);
      }
    },
    async markFanoutDone(refs) {
      const done = new Set<string>();
      for (const [appId, ids] of byApp(refs)) {
        for (const chunk of chunks(ids, CHUNK)) {
          const rows = await q.markDone(trx, chunk.length, [appId, ...chunk]);
          for (const r of rows) done.add(refKey({ appId, msgId: String(r.msg_id) }));
        }
      }
      return done;
    },
    async storeOffline(rows, now) {
      for (const chunk of chunks(rows, CHUNK)) {
        const params: unknown[] = [];
        for (const r of chunk) params.push(r.appId, r.username, Number(r.msgId), 'undelivered', now, null);
        await q.storeOffline(trx, chunk.length, params);
      }
    },
  };
}

/**
 * The user's own copies among `ids` taken by `device`: recorded as taken, and delivered once no
 * other device of the user seen since `seenSince` (the sending one aside) is left to take them.
 * Answers how many this device took. Two devices taking one copy at the same moment may each miss
 * the other's take: the copy then stays undelivered, read by neither again, until the history
 * retention deletes it.
 */
async function takeOwnCopies(db: Kysely<Database>, appId: string, username: string, ids: number[], now: number, device: { resource: string; seenSince: number }): Promise<number> {
  const own = await db
    .selectFrom('im_offline')
    .select('msg_id')
    .where('app_id', '=', appId)
    .where('username', '=', username)
    .where('status', '=', 'undelivered')
    .where('sent_from', '<>', device.resource)
    .where('msg_id', 'in', ids)
    .execute();
  if (own.length === 0) return 0;
  const ownIds = own.map((r) => Number(r.msg_id));
  await db
    .insertInto('im_offline_takes')
    .values(ownIds.map((msgId) => ({ app_id: appId, username, msg_id: msgId, resource: device.resource })))
    .onConflict((oc) => oc.columns(['app_id', 'username', 'msg_id', 'resource']).doNothing())
    .execute();
  await db
    .updateTable('im_offline as o')
    .set({ status: 'delivered', delivered_at: now })
    .where('o.app_id', '=', appId)
    .where('o.username', '=', username)
    .where('o.status', '=', 'undelivered')
    .where('o.msg_id', 'in', ownIds)
    .where(everyOtherDeviceTook(OFFLINE_TAKES, 'o', device.seenSince))
    .execute();
  return ownIds.length;
}

/** A user's stored messages: the drains' reads and acknowledgements, the count and the status endpoints. */
function offlineReads(db: Kysely<Database>) {
  return {
    async readOffline(appId, username, afterMsgId, limit, resource) {
      let query = db
        .selectFrom('im_offline as o')
        .innerJoin('im_messages as m', (join) => join.onRef('m.app_id', '=', 'o.app_id').onRef('m.msg_id', '=', 'o.msg_id'))
        .selectAll('m')
        .where('o.app_id', '=', appId)
        .where('o.username', '=', username)
        .where('o.status', '=', 'undelivered')
        .where('o.msg_id', '>', Number(afterMsgId));
      // The device that sent a message never takes the sender's own copy of it, and a device takes it once.
      if (resource !== undefined) query = query.where((eb) => eb.or([eb('o.sent_from', 'is', null), eb.and([eb('o.sent_from', '<>', resource), eb.not(takenBy(OFFLINE_TAKES, 'o', resource))])]));
      const rows = await query.orderBy('o.msg_id').limit(limitParam(limit)).execute();
      return rows.map(toMessage);
    },
    async markDelivered(appId, username, msgIds, now, device) {
      let marked = 0;
      for (const chunk of chunks([...msgIds], CHUNK)) {
        const ids = chunk.map((id) => Number(id));
        let update = db
          .updateTable('im_offline')
          .set({ status: 'delivered', delivered_at: now })
          .where('app_id', '=', appId)
          .where('username', '=', username)
          .where('status', '=', 'undelivered')
          .where('msg_id', 'in', ids);
        // A device's own copies are taken one device at a time (takeOwnCopies); received messages at once.
        if (device) update = update.where('sent_from', 'is', null);
        const result = await update.executeTakeFirst();
        marked += Number(result.numUpdatedRows);
        if (device && Number(result.numUpdatedRows) < ids.length) marked += await takeOwnCopies(db, appId, username, ids, now, device);
      }
      return marked;
    },
    async returnOffline(appId, username, msgIds, now) {
      for (const chunk of chunks([...msgIds], CHUNK)) {
        await db
          .insertInto('im_offline')
          .values(chunk.map((msgId) => ({ app_id: appId, username, msg_id: Number(msgId), status: 'undelivered' as const, created_at: now, delivered_at: null })))
          .onConflict((oc) => oc.columns(['app_id', 'username', 'msg_id']).doUpdateSet({ status: 'undelivered', delivered_at: null }))
          .execute();
      }
    },
    async countOffline(appId, username) {
      const row = await db
        .selectFrom('im_offline')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .where('status', '=', 'undelivered')
        .where('sent_from', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async offlineStatus(appId, username, msgId) {
      const row = await db
        .selectFrom('im_offline')
        .select('status')
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .where('msg_id', '=', Number(msgId))
        .executeTakeFirst();
      return row?.status;
    },
  } satisfies Pick<ImMessagesRepository, 'readOffline' | 'markDelivered' | 'returnOffline' | 'countOffline' | 'offlineStatus'>;
}

/** A user's messages whose fan-out has not run: the offline reads settle them first. */
function pendingReads(db: Kysely<Database>) {
  return {
    async pendingFanoutFor(appId, username, limit) {
      // Two lookups along the receiver index, merged here: one query with OR would not use it.
      const pending = () => db.selectFrom('im_pending_fanout').select('msg_id').where('app_id', '=', appId);
      const [direct, groups] = await Promise.all([
        pending().where('receiver', '=', username).where('chat_type', '=', 'chat').orderBy('msg_id').limit(limitParam(limit)).execute(),
        pending()
          .where('chat_type', '=', 'groupchat')
          .where('receiver', 'in', (eb) => eb.selectFrom('im_members').select('group_id').where('app_id', '=', appId).where('username', '=', username))
          .orderBy('msg_id')
          .limit(limitParam(limit))
          .execute(),
      ]);
      const ids = [...direct, ...groups].map((r) => Number(r.msg_id)).sort((x, y) => x - y);
      return ids.slice(0, limit).map((id) => ({ appId, msgId: String(id) }));
    },
  } satisfies Pick<ImMessagesRepository, 'pendingFanoutFor'>;
}

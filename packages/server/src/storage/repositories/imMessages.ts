import type { Kysely, Selectable } from 'kysely';
import { refKey, type ImMessagesRepository, type MessageRef, type StoredMessage } from '../../modules/im/ports.js';
import type { ImMessagesTable } from '../../modules/im/tables.js';
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

export function kyselyImMessagesRepository(db: Kysely<Database>): ImMessagesRepository {
  return {
    async insertMessages(trx, messages) {
      for (const chunk of chunks(messages, CHUNK)) {
        await trx
          .insertInto('im_messages')
          .values(
            chunk.map((m) => ({
              app_id: m.appId,
              msg_id: Number(m.msgId),
              sender: m.from,
              receiver: m.to,
              chat_type: m.chatType,
              source: m.source,
              timestamp: m.timestamp,
              payload: JSON.stringify(m.payload),
            })),
          )
          .execute();
      }
    },
    async pendingFanout(refs) {
      const out: StoredMessage[] = [];
      for (const [appId, ids] of byApp(refs)) {
        for (const chunk of chunks(ids, CHUNK)) {
          const rows = await db.selectFrom('im_messages').selectAll().where('app_id', '=', appId).where('msg_id', 'in', chunk).where('fanout_done', '=', 0).orderBy('msg_id').execute();
          out.push(...rows.map(toMessage));
        }
      }
      return out;
    },
    async markFanoutDone(trx, refs) {
      const done = new Set<string>();
      for (const [appId, ids] of byApp(refs)) {
        for (const chunk of chunks(ids, CHUNK)) {
          const rows = await trx
            .updateTable('im_messages')
            .set({ fanout_done: 1 })
            .where('app_id', '=', appId)
            .where('msg_id', 'in', chunk)
            .where('fanout_done', '=', 0)
            .returning('msg_id')
            .execute();
          for (const r of rows) done.add(refKey({ appId, msgId: String(r.msg_id) }));
        }
      }
      return done;
    },
    async storeOffline(trx, rows, now) {
      for (const chunk of chunks(rows, CHUNK)) {
        await trx
          .insertInto('im_offline')
          .values(chunk.map((r) => ({ app_id: r.appId, username: r.username, msg_id: Number(r.msgId), status: 'undelivered' as const, created_at: now, delivered_at: null })))
          .onConflict((oc) => oc.columns(['app_id', 'username', 'msg_id']).doNothing())
          .execute();
      }
    },
    async claimOffline(appId, username, now, limit) {
      return db.transaction().execute(async (trx) => {
        const ids = await trx
          .selectFrom('im_offline')
          .select('msg_id')
          .where('app_id', '=', appId)
          .where('username', '=', username)
          .where('status', '=', 'undelivered')
          .orderBy('msg_id')
          .limit(limit)
          .execute();
        if (ids.length === 0) return [];
        const msgIds = ids.map((r) => r.msg_id);
        // Only rows this call flips count as claimed, so two concurrent drains never send one twice.
        const claimed = await trx
          .updateTable('im_offline')
          .set({ status: 'delivered', delivered_at: now })
          .where('app_id', '=', appId)
          .where('username', '=', username)
          .where('status', '=', 'undelivered')
          .where('msg_id', 'in', msgIds)
          .returning('msg_id')
          .execute();
        if (claimed.length === 0) return [];
        const rows = await trx
          .selectFrom('im_messages')
          .selectAll()
          .where('app_id', '=', appId)
          .where(
            'msg_id',
            'in',
            claimed.map((r) => r.msg_id),
          )
          .orderBy('msg_id')
          .execute();
        return rows.map(toMessage);
      });
    },
    async countOffline(appId, username) {
      const row = await db
        .selectFrom('im_offline')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('app_id', '=', appId)
        .where('username', '=', username)
        .where('status', '=', 'undelivered')
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
  };
}

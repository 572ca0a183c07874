import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { HistoryQuery, ImHistoryRepository } from '../../modules/im/history.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { CHAT, MESSAGE_COLUMNS, storedMessageOf, type MessageRow } from './im-message-row.js';

type MessagesQuery = SelectQueryBuilder<Database, 'im_messages', MessageRow>;


/** The first body's type, read from the stored JSON by each engine's own function. */
const firstBodyType = (engine: Engine) =>
  engine === 'postgres' ? sql<string>`(payload::jsonb -> 'bodies' -> 0 ->> 'type')` : sql<string>`json_extract(payload, '$.bodies[0].type')`;

/**
 * History pages (migration 83 keeps them index range scans): a one-to-one page is two ranges of
 * `(app_id, sender, receiver, msg_id)`, one per direction of the pair, merged; a group's is one
 * range of `(app_id, receiver, msg_id)`. Time and type filters are checked on the rows the range
 * walks, in msg_id order (msg_ids grow with time). On PostgreSQL those indexes are partial by chat
 * type (migration 131), so each query names its chat type (`CHAT`).
 */
export function kyselyImHistory(db: Kysely<Database>, engine: Engine): ImHistoryRepository {
  const filtered = (base: MessagesQuery, q: HistoryQuery): MessagesQuery => {
    let query = base.where('timestamp', '>=', q.since);
    if (q.until !== undefined) query = query.where('timestamp', '<=', q.until);
    if (q.floor !== undefined) query = query.where('msg_id', '>', Number(q.floor) as never);
    if (q.cursor !== undefined) query = query.where('msg_id', q.direction === 'up' ? '<' : '>', Number(q.cursor) as never);
    if (q.types) query = query.where(firstBodyType(engine), 'in', q.types);
    return query.orderBy('msg_id', q.direction === 'up' ? 'desc' : 'asc').limit(q.limit);
  };
  const select = () => db.selectFrom('im_messages').select(MESSAGE_COLUMNS);

  return {
    async page(q) {
      const c = q.conversation;
      if (c.kind === 'group') {
        let base = select().where('app_id', '=', q.appId).where('receiver', '=', c.groupId).where('chat_type', '<>', CHAT);
        if (c.sender !== undefined) base = base.where('sender', '=', c.sender);
        return (await filtered(base, q).execute()).map(storedMessageOf);
      }
      const half = (from: string, to: string) => filtered(select().where('app_id', '=', q.appId).where('sender', '=', from).where('receiver', '=', to).where('chat_type', '=', CHAT), q).execute();
      const [sent, received] = await Promise.all([half(c.me, c.peer), c.me === c.peer ? Promise.resolve([]) : half(c.peer, c.me)]);
      const sign = q.direction === 'up' ? -1 : 1;
      return [...sent, ...received]
        .map(storedMessageOf)
        .sort((a, b) => sign * (BigInt(a.msgId) < BigInt(b.msgId) ? -1 : 1))
        .slice(0, q.limit);
    },
    async removeMessages(appId, msgIds) {
      if (msgIds.length === 0) return 0;
      const ids = msgIds.map((id) => Number(id) as never);
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('im_offline').where('app_id', '=', appId).where('msg_id', 'in', ids).execute();
        const result = await trx.deleteFrom('im_messages').where('app_id', '=', appId).where('msg_id', 'in', ids).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}

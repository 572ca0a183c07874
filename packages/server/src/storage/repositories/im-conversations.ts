import { sql, type Kysely } from 'kysely';
import type { ConversationMarks, ConversationRef, ImConversationsRepository } from '../../modules/im/conversations.js';
import { markBit } from '../../modules/im/conversation-mark-set.js';
import { markKey } from '../../modules/im/conversations.js';
import type { Database } from '../schema.js';
import { CHAT, MESSAGE_COLUMNS, storedMessageOf } from './im-message-row.js';

const id = (v: number | string | bigint | null | undefined): string => String(v ?? 0);

/** Every one-to-one peer and group of the user with the msg_id of its latest message. */
async function latestConversations(db: Kysely<Database>, appId: string, username: string): Promise<Array<ConversationRef & { lastMsgId: string }>> {
  const sent = db
    .selectFrom('im_messages')
    .select(['receiver as peer', (eb) => eb.fn.max('msg_id').as('last')])
    .where('app_id', '=', appId)
    .where('sender', '=', username)
    .where('chat_type', '=', CHAT)
    .groupBy('receiver')
    .execute();
  // The user's received messages, grouped by sender here: a GROUP BY sender in SQL lets SQLite's
  // planner walk the whole app in `im_messages_pair` order (sender first) instead of the user's
  // range of `im_messages_receiver`.
  const received = db
    .selectFrom('im_messages')
    .select(['sender as peer', 'msg_id as last'])
    .where('app_id', '=', appId)
    .where('receiver', '=', username)
    .where('chat_type', '=', CHAT)
    .execute();
  const groups = db
    .selectFrom('im_members as m')
    .innerJoin('im_groups as g', 'g.id', 'm.group_id')
    .select([
      'm.group_id as peer',
      sql<number | string | null>`(SELECT MAX(x.msg_id) FROM im_messages x WHERE x.app_id = m.app_id AND x.receiver = m.group_id AND x.chat_type <> 'chat')`.as('last'),
    ])
    .where('m.app_id', '=', appId)
    .where('m.username', '=', username)
    .where('g.kind', '=', 'group')
    .execute();
  const [sentRows, receivedRows, groupRows] = await Promise.all([sent, received, groups]);
  const chats = new Map<string, string>();
  for (const row of [...sentRows, ...receivedRows]) {
    const last = id(row.last);
    const known = chats.get(row.peer);
    if (known === undefined || BigInt(last) > BigInt(known)) chats.set(row.peer, last);
  }
  return [
    ...[...chats].map(([peer, lastMsgId]) => ({ kind: 'chat' as const, peer, lastMsgId })),
    ...groupRows.filter((g) => g.last !== null).map((g) => ({ kind: 'group' as const, peer: g.peer, lastMsgId: id(g.last) })),
  ];
}

/**
 * The conversation list read from im_messages (migration 83's indexes): a user's one-to-one peers
 * are the groups of `(sender, receiver)` ranges both ways, a group's latest message one index seek
 * per group; unread counts are index ranges after the read mark. Every query names its chat type
 * (`CHAT`): on PostgreSQL those indexes are partial by it (migration 131).
 */
export function kyselyImConversations(db: Kysely<Database>): ImConversationsRepository {
  return {
    latest: (appId, username) => latestConversations(db, appId, username),
    async marks(appId, username) {
      const rows = await db.selectFrom('im_conversation_marks').selectAll().where('app_id', '=', appId).where('username', '=', username).execute();
      return new Map<string, ConversationMarks>(
        rows.map((r) => [markKey({ kind: r.kind, peer: r.peer }), { readMsgId: id(r.read_msg_id), hiddenMsgId: id(r.hidden_msg_id), clearedMsgId: id(r.cleared_msg_id), pinnedAt: Number(r.pinned_at), markSet: Number(r.mark_set) }]),
      );
    },
    async messages(appId, msgIds) {
      if (msgIds.length === 0) return [];
      const rows = await db
        .selectFrom('im_messages')
        .select(MESSAGE_COLUMNS)
        .where('app_id', '=', appId)
        .where('msg_id', 'in', msgIds.map((m) => Number(m) as never))
        .execute();
      return rows.map(storedMessageOf);
    },
    async unread(appId, username, items, since) {
      if (items.length === 0) return [];
      // One statement for the page (each item an index range after its read mark), not one per item.
      const count = (c: (typeof items)[number], i: number) => {
        const query = db
          .selectFrom('im_messages')
          .select((eb) => [sql.lit(i).as('i'), eb.fn.countAll<number | string>().as('n')])
          .where('app_id', '=', appId)
          .where('msg_id', '>', Number(c.afterMsgId) as never)
          .where('timestamp', '>=', since);
        return c.kind === 'chat' ? query.where('sender', '=', c.peer).where('receiver', '=', username).where('chat_type', '=', CHAT) : query.where('receiver', '=', c.peer).where('chat_type', '<>', CHAT).where('sender', '!=', username);
      };
      const [first, ...rest] = items.map(count);
      const rows = await rest.reduce((union, query) => union.unionAll(query), first!).execute();
      const counts = new Array<number>(items.length).fill(0);
      for (const row of rows) counts[Number(row.i)] = Number(row.n);
      return counts;
    },
    async latestOf(appId, username, ref) {
      const max = (from: string, to: string) =>
        db
          .selectFrom('im_messages')
          .select((eb) => eb.fn.max('msg_id').as('last'))
          .where('app_id', '=', appId)
          .where('sender', '=', from)
          .where('receiver', '=', to)
          .where('chat_type', '=', CHAT)
          .executeTakeFirst();
      if (ref.kind === 'group') {
        const row = await db.selectFrom('im_messages').select((eb) => eb.fn.max('msg_id').as('last')).where('app_id', '=', appId).where('receiver', '=', ref.peer).where('chat_type', '<>', CHAT).executeTakeFirst();
        return id(row?.last);
      }
      const [a, b] = await Promise.all([max(username, ref.peer), max(ref.peer, username)]);
      const x = id(a?.last);
      const y = id(b?.last);
      return BigInt(x) > BigInt(y) ? x : y;
    },
    async mark(appId, username, ref, marks) {
      const values = {
        ...(marks.readMsgId !== undefined ? { read_msg_id: Number(marks.readMsgId) } : {}),
        ...(marks.hiddenMsgId !== undefined ? { hidden_msg_id: Number(marks.hiddenMsgId) } : {}),
        ...(marks.clearedMsgId !== undefined ? { cleared_msg_id: Number(marks.clearedMsgId) } : {}),
        ...(marks.pinnedAt !== undefined ? { pinned_at: marks.pinnedAt } : {}),
      };
      await db
        .insertInto('im_conversation_marks')
        .values({ app_id: appId, username, kind: ref.kind, peer: ref.peer, ...values })
        .onConflict((oc) => oc.columns(['app_id', 'username', 'kind', 'peer']).doUpdateSet(values))
        .execute();
    },
    async setMark(appId, username, refs, mark, on) {
      if (refs.length === 0) return;
      // One statement for every conversation (all or none), the bit set or cleared in place.
      const bit = markBit(mark);
      const set = on ? sql<number>`im_conversation_marks.mark_set | ${sql.lit(bit)}` : sql<number>`im_conversation_marks.mark_set & ${sql.lit(~bit)}`;
      await db
        .insertInto('im_conversation_marks')
        .values(refs.map((ref) => ({ app_id: appId, username, kind: ref.kind, peer: ref.peer, mark_set: on ? bit : 0 })))
        .onConflict((oc) => oc.columns(['app_id', 'username', 'kind', 'peer']).doUpdateSet({ mark_set: set }))
        .execute();
    },
  };
}

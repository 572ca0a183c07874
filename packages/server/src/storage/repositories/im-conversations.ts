import { sql, type Kysely } from 'kysely';
import type { ConversationMarks, ConversationOverview, ConversationRef, ImConversationsRepository, PageItem } from '../../modules/im/conversations.js';
import { markBit } from '../../modules/im/conversation-mark-set.js';
import { laterMsgId, markKey } from '../../modules/im/conversations.js';
import type { Database } from '../schema.js';
import type { Engine } from '../types.js';
import { CHAT, storedMessageOf, type MessageRow } from './im-message-row.js';

const id = (v: number | string | bigint | null | undefined): string => String(v ?? 0);

interface OverviewRow {
  /** 'c': a one-to-one row (sent: the peer's latest; received: one row per message), 'g': a group, 'm': a mark. */
  src: 'c' | 'g' | 'm';
  kind: ConversationRef['kind'];
  peer: string;
  last_id: number | string | null;
  read_msg_id: number | string | null;
  hidden_msg_id: number | string | null;
  cleared_msg_id: number | string | null;
  pinned_at: number | string | null;
  mark_set: number | string | null;
}

/**
 * Every one-to-one peer and group of the user with the msg_id of its latest message, and the user's
 * marks, in one statement (one round trip): a `UNION ALL` of index ranges, the columns a branch
 * has no use for NULL. On SQLite the received side is the user's rows, grouped by sender here: a
 * GROUP BY sender in SQL lets SQLite's planner walk the whole app in `im_messages_pair` order
 * (sender first) instead of the user's range of `im_messages_receiver`. PostgreSQL reads that range
 * either way, so it groups them itself and sends one row per peer.
 */
async function overview(db: Kysely<Database>, engine: Engine, appId: string, username: string): Promise<ConversationOverview> {
  const nil = sql`CAST(NULL AS BIGINT)`;
  const [received, grouped] = engine === 'postgres' ? [sql`MAX(msg_id)`, sql` GROUP BY sender`] : [sql`msg_id`, sql``];
  const none = sql`${nil} AS read_msg_id, ${nil} AS hidden_msg_id, ${nil} AS cleared_msg_id, ${nil} AS pinned_at, ${nil} AS mark_set`;
  const { rows } = await sql<OverviewRow>`
    SELECT 'c' AS src, 'chat' AS kind, receiver AS peer, MAX(msg_id) AS last_id, ${none}
      FROM im_messages WHERE app_id = ${appId} AND sender = ${username} AND chat_type = 'chat' GROUP BY receiver
    UNION ALL
    SELECT 'c', 'chat', sender, ${received}, ${none}
      FROM im_messages WHERE app_id = ${appId} AND receiver = ${username} AND chat_type = 'chat'${grouped}
    UNION ALL
    SELECT 'g', 'group', m.group_id, (SELECT MAX(x.msg_id) FROM im_messages x WHERE x.app_id = m.app_id AND x.receiver = m.group_id AND x.chat_type <> 'chat'), ${none}
      FROM im_members m JOIN im_groups g ON g.id = m.group_id WHERE m.app_id = ${appId} AND m.username = ${username} AND g.kind = 'group'
    UNION ALL
    SELECT 'm', kind, peer, ${nil}, read_msg_id, hidden_msg_id, cleared_msg_id, pinned_at, mark_set
      FROM im_conversation_marks WHERE app_id = ${appId} AND username = ${username}`.execute(db);
  const chats = new Map<string, string>();
  const groups: Array<ConversationRef & { lastMsgId: string }> = [];
  const marks = new Map<string, ConversationMarks>();
  for (const row of rows) {
    if (row.src === 'm') {
      marks.set(markKey(row), { readMsgId: id(row.read_msg_id), hiddenMsgId: id(row.hidden_msg_id), clearedMsgId: id(row.cleared_msg_id), pinnedAt: Number(row.pinned_at), markSet: Number(row.mark_set) });
    } else if (row.src === 'g') {
      if (row.last_id !== null) groups.push({ kind: 'group', peer: row.peer, lastMsgId: id(row.last_id) });
    } else {
      const last = id(row.last_id);
      const known = chats.get(row.peer);
      if (known === undefined || laterMsgId(last, known)) chats.set(row.peer, last);
    }
  }
  return { latest: [...[...chats].map(([peer, lastMsgId]) => ({ kind: 'chat' as const, peer, lastMsgId })), ...groups], marks };
}

/**
 * Each page item's last message and unread count in one statement: the items as a VALUES list
 * joined to their last message by primary key, the count an index range after the item's
 * `afterMsgId` (its read mark, which the caller has moved past the history period: msg_ids hold
 * their time). A peer's messages to the user are counted in the pair index alone (`im_messages_pair`,
 * on PostgreSQL `im_messages_chat_pair`), without reading the table; a group's messages from
 * others along `im_messages_receiver` (`im_messages_group_receiver`), which reads each one's
 * sender. One plan for the page on PostgreSQL, not one per item. `CROSS JOIN` keeps
 * the items the outer loop on SQLite: with a plain join of 50 items its planner scans the app's
 * messages and probes an automatic index on the items instead.
 */
async function pageOf(db: Kysely<Database>, appId: string, username: string, items: readonly PageItem[]) {
  if (items.length === 0) return [];
  const values = sql.join(items.map((c, i) => sql`(CAST(${i} AS INTEGER), CAST(${c.kind} AS TEXT), CAST(${c.peer} AS TEXT), CAST(${Number(c.lastMsgId)} AS BIGINT), CAST(${Number(c.afterMsgId)} AS BIGINT))`));
  const { rows } = await sql<MessageRow & { i: number | string; n: number | string }>`
    WITH t (i, kind, peer, last_id, read_after) AS (VALUES ${values})
    SELECT t.i, m.app_id, m.msg_id, m.sender, m.receiver, m.chat_type, m.source, m.timestamp, m.payload,
      CASE WHEN t.kind = 'chat'
        THEN (SELECT COUNT(*) FROM im_messages u WHERE u.app_id = ${appId} AND u.sender = t.peer AND u.receiver = ${username} AND u.chat_type = 'chat' AND u.msg_id > t.read_after)
        ELSE (SELECT COUNT(*) FROM im_messages u WHERE u.app_id = ${appId} AND u.receiver = t.peer AND u.chat_type <> 'chat' AND u.msg_id > t.read_after AND u.sender <> ${username})
      END AS n
    FROM t CROSS JOIN im_messages m WHERE m.app_id = ${appId} AND m.msg_id = t.last_id`.execute(db);
  const out = items.map(() => ({ last: undefined as ReturnType<typeof storedMessageOf> | undefined, unread: 0 }));
  for (const row of rows) out[Number(row.i)] = { last: storedMessageOf(row), unread: Number(row.n) };
  return out;
}

/**
 * The conversation list read from im_messages (migration 83's indexes): a user's one-to-one peers
 * are the groups of `(sender, receiver)` ranges both ways, a group's latest message one index seek
 * per group; unread counts are index ranges after the read mark. Every query names its chat type
 * as a literal ('chat', or `<> 'chat'` for groups): on PostgreSQL those indexes are partial by it (migration 131).
 */
export function kyselyImConversations(db: Kysely<Database>, engine: Engine): ImConversationsRepository {
  return {
    overview: (appId, username) => overview(db, engine, appId, username),
    async marks(appId, username) {
      const rows = await db.selectFrom('im_conversation_marks').selectAll().where('app_id', '=', appId).where('username', '=', username).execute();
      return new Map<string, ConversationMarks>(
        rows.map((r) => [markKey({ kind: r.kind, peer: r.peer }), { readMsgId: id(r.read_msg_id), hiddenMsgId: id(r.hidden_msg_id), clearedMsgId: id(r.cleared_msg_id), pinnedAt: Number(r.pinned_at), markSet: Number(r.mark_set) }]),
      );
    },
    page: (appId, username, items) => pageOf(db, appId, username, items),
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

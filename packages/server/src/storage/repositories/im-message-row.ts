/**
 * A stored IM message as its row holds it, for the reads that need no delivery state (history, the
 * conversation list, recall and edit): the columns read and the one mapping to `StoredMessage`. The
 * drain's reads (imMessages.ts) map the live-delivery columns as well.
 */
import { sql, type Selectable } from 'kysely';
import type { StoredMessage } from '../../modules/im/ports.js';
import type { ImMessagesTable } from '../tables/im.js';

/**
 * The chat type `chat` written into the SQL as a literal: the history and list reads compare with it
 * (`= CHAT` one-to-one, `<> CHAT` a group's or room's), and on PostgreSQL that comparison is what lets
 * them use the partial indexes of migration 131 whatever plan the statement gets.
 */
export const CHAT = sql.lit<'chat'>('chat');

/** The columns a `StoredMessage` is read from. */
export const MESSAGE_COLUMNS = ['app_id', 'msg_id', 'sender', 'receiver', 'chat_type', 'source', 'timestamp', 'payload'] as const;
export type MessageRow = Pick<Selectable<ImMessagesTable>, (typeof MESSAGE_COLUMNS)[number]>;

export const storedMessageOf = (row: MessageRow): StoredMessage => ({
  appId: row.app_id,
  msgId: String(row.msg_id),
  from: row.sender,
  to: row.receiver,
  chatType: row.chat_type,
  source: row.source,
  timestamp: Number(row.timestamp),
  payload: JSON.parse(row.payload) as StoredMessage['payload'],
});

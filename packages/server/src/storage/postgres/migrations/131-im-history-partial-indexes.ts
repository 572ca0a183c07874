import type { Migration } from '../../types.js';

/**
 * Migration 83's history and conversation-list indexes, made partial by chat type. Both led with
 * `app_id`, so PostgreSQL could also walk them for a lookup by `(app_id, msg_id)`: the foreign-key
 * checks of `im_pending_fanout` and `im_offline` (one per message) are planned once per connection,
 * and when that happened while `im_messages` was still empty and never analysed the planner costed
 * `im_messages_receiver` the same as the primary key and could take it, with only `app_id` as a
 * range bound: each check then read every message of the app. A partial index is never a candidate
 * for a statement whose conditions do not imply its predicate, which those checks' do not, so they
 * keep to the primary key. The reads name the chat type: one-to-one ones `chat_type = 'chat'`,
 * a group's or room's `chat_type <> 'chat'`.
 */
export const imHistoryPartialIndexes: Migration = {
  version: 131,
  name: 'im-history-partial-indexes',
  statements: [
    `CREATE INDEX im_messages_chat_pair ON im_messages (app_id, sender, receiver, msg_id) WHERE chat_type = 'chat'`,
    `CREATE INDEX im_messages_chat_receiver ON im_messages (app_id, receiver, msg_id) WHERE chat_type = 'chat'`,
    `CREATE INDEX im_messages_group_receiver ON im_messages (app_id, receiver, msg_id) WHERE chat_type <> 'chat'`,
    `DROP INDEX im_messages_pair`,
    `DROP INDEX im_messages_receiver`,
  ],
};

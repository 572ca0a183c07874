import type { Migration } from '../../types.js';

/**
 * A user's marks on one of their conversations (the server conversation list): read up to a
 * msg_id (CHANNEL_ACK), hidden up to one (deleted; a later message shows it again), and history
 * cleared up to one (deleted with its roaming messages). The list itself is read from im_messages.
 */
export const imConversationMarks: Migration = {
  version: 84,
  name: 'im-conversation-marks',
  statements: [
    `CREATE TABLE im_conversation_marks (
      app_id TEXT NOT NULL REFERENCES im_apps(id) ON DELETE CASCADE,
      username TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('chat', 'group')),
      peer TEXT NOT NULL,
      read_msg_id BIGINT NOT NULL DEFAULT 0,
      hidden_msg_id BIGINT NOT NULL DEFAULT 0,
      cleared_msg_id BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (app_id, username, kind, peer)
    )`,
  ],
};

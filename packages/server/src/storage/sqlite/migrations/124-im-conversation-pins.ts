import type { Migration } from '../../types.js';

/**
 * A user's pin of one of their conversations (the SDK's `pinConversation`): when it was pinned,
 * in ms, 0 when it is not. Kept with the conversation's other marks.
 */
export const imConversationPins: Migration = {
  version: 124,
  name: 'im-conversation-pins',
  statements: [`ALTER TABLE im_conversation_marks ADD COLUMN pinned_at INTEGER NOT NULL DEFAULT 0`],
};

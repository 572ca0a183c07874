import type { Migration } from '../../types.js';

/**
 * A user's Easemob conversation marks on one of their conversations (the SDK's
 * `addConversationMark`, marks 0–19): a bit set, bit n for `mark_n`, 0 when none. Kept with the
 * conversation's other marks.
 */
export const imConversationMarkSets: Migration = {
  version: 125,
  name: 'im-conversation-mark-sets',
  statements: [`ALTER TABLE im_conversation_marks ADD COLUMN mark_set INTEGER NOT NULL DEFAULT 0`],
};

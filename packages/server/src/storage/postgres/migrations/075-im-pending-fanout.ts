import type { Migration } from '../../types.js';

/**
 * The messages whose fan-out has not run yet, by receiver: the offline count and status reads run
 * a user's pending fan-out first (read-after-write), and this keeps finding them cheap.
 */
export const imPendingFanout: Migration = {
  version: 75,
  name: 'im-pending-fanout',
  statements: [`CREATE INDEX im_messages_pending_fanout ON im_messages (app_id, receiver) WHERE fanout_done = 0`],
};

import type { Migration } from '../../types.js';

/**
 * Conversation events for the integrator (contract 6.4) travel as deliveries: a delivery without
 * a message (`message_id` null) and with the event's name (`event`). Associations gain their
 * `events` setting (a JSON array).
 */
export const conversationEvents: Migration = {
  version: 90,
  name: 'conversation-events',
  statements: [
    `ALTER TABLE deliveries ALTER COLUMN message_id DROP NOT NULL`,
    `ALTER TABLE deliveries ADD COLUMN event TEXT`,
    `ALTER TABLE rest_channels ADD COLUMN events TEXT NOT NULL DEFAULT '[]'`,
  ],
};

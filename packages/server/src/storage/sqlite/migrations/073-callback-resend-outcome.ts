import type { Migration } from '../../types.js';

/**
 * A stored callback remembers its last re-send: `resend_result` ('success' or 'failure') and
 * `resent_at` (ms), both null until the record is re-sent. A failed re-send also replaces
 * `last_error`; a successful one leaves the original failure there.
 */
export const callbackResendOutcome: Migration = {
  version: 73,
  name: 'callback-resend-outcome',
  statements: [
    `ALTER TABLE callback_stored ADD COLUMN resend_result TEXT`,
    `ALTER TABLE callback_stored ADD COLUMN resent_at INTEGER`,
  ],
};

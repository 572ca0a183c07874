import type { Migration } from '../../types.js';

/**
 * The customer side of contract 6.4: an agent message's receipt (`delivered`, `read`), and a
 * conversation's satisfaction rating with the time it was invited (a rating needs an invitation).
 */
export const receiptsRatings: Migration = {
  version: 91,
  name: 'receipts-ratings',
  statements: [
    `ALTER TABLE channel_messages ADD COLUMN receipt TEXT CHECK (receipt IN ('delivered', 'read'))`,
    `ALTER TABLE conversations ADD COLUMN csat_invited_at BIGINT`,
    `ALTER TABLE conversations ADD COLUMN csat_score INTEGER`,
    `ALTER TABLE conversations ADD COLUMN csat_comment TEXT`,
    `ALTER TABLE conversations ADD COLUMN csat_at BIGINT`,
  ],
};

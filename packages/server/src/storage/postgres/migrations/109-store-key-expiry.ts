import type { Migration } from '../../types.js';

/**
 * An exception-store key remembers when its first record was stored and when `store.expiring`
 * was raised for it (once per key). Existing keys take their oldest stored record's time.
 */
export const storeKeyExpiry: Migration = {
  version: 109,
  name: 'store-key-expiry',
  statements: [
    `ALTER TABLE callback_store_keys ADD COLUMN first_stored_at BIGINT`,
    `ALTER TABLE callback_store_keys ADD COLUMN expiring_noticed_at BIGINT`,
    `UPDATE callback_store_keys SET first_stored_at = (
      SELECT MIN(s.stored_at) FROM callback_stored s WHERE s.app_id = callback_store_keys.app_id AND s.date_key = callback_store_keys.date_key
    )`,
    `CREATE INDEX callback_store_keys_expiring ON callback_store_keys (first_stored_at) WHERE expiring_noticed_at IS NULL`,
  ],
};

import type { Migration } from '../../types.js';

/**
 * The exception store's `storage/info` answered each key's size with a COUNT over all of the
 * app's stored records (about 20 ms of the event loop per request at 100,000 records on SQLite).
 * The key row now carries its size, kept by the repository as records are stored and swept.
 */
export const callbackStoreSize: Migration = {
  version: 60,
  name: 'callback-store-size',
  statements: [
    `ALTER TABLE callback_store_keys ADD COLUMN size INTEGER NOT NULL DEFAULT 0`,
    `UPDATE callback_store_keys SET size = (
      SELECT COUNT(*) FROM callback_stored s WHERE s.app_id = callback_store_keys.app_id AND s.date_key = callback_store_keys.date_key)`,
  ],
};

import type { Migration } from '../../types.js';

/**
 * The previous secret of a rotation with overlap (contract 6.6) and the ms it stays valid until:
 * an association's sealed Client Secret, a callback rule's sealed secret, an IM app's client
 * secret hash. NULL: no overlap.
 */
export const secretOverlap: Migration = {
  version: 100,
  name: 'secret-overlap',
  statements: [
    `ALTER TABLE rest_channels ADD COLUMN previous_secret_sealed TEXT`,
    `ALTER TABLE rest_channels ADD COLUMN previous_secret_until INTEGER`,
    `ALTER TABLE callback_rules ADD COLUMN previous_secret TEXT`,
    `ALTER TABLE callback_rules ADD COLUMN previous_secret_until INTEGER`,
    `ALTER TABLE im_apps ADD COLUMN previous_client_secret_hash TEXT`,
    `ALTER TABLE im_apps ADD COLUMN previous_secret_until INTEGER`,
  ],
};

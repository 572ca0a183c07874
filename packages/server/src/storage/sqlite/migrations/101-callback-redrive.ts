import type { Migration } from '../../types.js';

/** A callback rule's opt-in re-drive: when a ban ends, the records stored during it are re-sent (0/1). */
export const callbackRedrive: Migration = {
  version: 101,
  name: 'callback-redrive',
  statements: [`ALTER TABLE callback_rules ADD COLUMN redrive INTEGER NOT NULL DEFAULT 0`],
};

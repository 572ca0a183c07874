import type { Migration } from '../../types.js';

/**
 * Who a message is pushed to live, recorded with it before it commits: the fan-out skips those
 * receivers (the instance `live_by` pushes them) unless that instance died first. NULL: nobody.
 */
export const imLiveReceivers: Migration = {
  version: 77,
  name: 'im-live-receivers',
  statements: [`ALTER TABLE im_messages ADD COLUMN live TEXT`, `ALTER TABLE im_messages ADD COLUMN live_by TEXT`],
};

import type { Migration } from '../../types.js';

/** A user's remark on each of their contacts (`setContactRemark`), empty until set; gone with the contact. */
export const imContactRemarks: Migration = {
  version: 123,
  name: 'im-contact-remarks',
  statements: [`ALTER TABLE im_contacts ADD COLUMN remark TEXT NOT NULL DEFAULT ''`],
};

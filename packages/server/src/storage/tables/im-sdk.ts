/** Tables of the SDK surface (contract 6.8): allowed origins, user attributes, contacts and blocks. */
import type { Generated } from 'kysely';

export interface ImAllowedOriginsTable {
  app_id: string;
  /** JSON array: `"*"` or origins `scheme://host[:port]`. */
  origins: string;
  updated_at: number;
}

export interface ImUserAttributesTable {
  app_id: string;
  username: string;
  /** JSON object of string values. */
  attributes: string;
  updated_at: number;
}

export interface ImContactsTable {
  app_id: string;
  username: string;
  contact: string;
  created_at: number;
  /** `username`'s remark on `contact` (setContactRemark); '' until set. */
  remark: Generated<string>;
}

export interface ImContactRequestsTable {
  app_id: string;
  requester: string;
  target: string;
  reason: string;
  created_at: number;
}

export interface ImBlocksTable {
  app_id: string;
  username: string;
  blocked: string;
  created_at: number;
}

/** An invitation to a group that needs the invitee's confirmation, until answered. */
export interface ImGroupInvitesTable {
  group_id: string;
  app_id: string;
  username: string;
  inviter: string;
  reason: string;
  created_at: number;
}

export interface ImSdkTables {
  im_allowed_origins: ImAllowedOriginsTable;
  im_user_attributes: ImUserAttributesTable;
  im_contacts: ImContactsTable;
  im_contact_requests: ImContactRequestsTable;
  im_blocks: ImBlocksTable;
  im_group_invites: ImGroupInvitesTable;
}
